package dev.khameleon.store;

import dev.khameleon.core.spi.ProgressiveEncoder;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The import command: stores files (already in progressive order, e.g. progressive JPEGs) as
 * responses, cut into fixed-size blocks by {@link ProgressiveEncoder#fixedBlocks}, in one
 * crash-safe import.
 *
 * <pre>
 * java -cp khameleon-store/target/khameleon-store-0.1.0-SNAPSHOT.jar:khameleon-core/target/khameleon-core-0.1.0-SNAPSHOT.jar \
 *     dev.khameleon.store.StoreImport --store DIR --block-size BYTES [--first-id N] [--lock-wait SECONDS] FILE_OR_FOLDER...
 * </pre>
 *
 * <p>Folders contribute their regular files (not recursively) in name order. Ids continue after
 * the store's last, counted once the import holds the store's writer lock, so concurrent imports
 * get disjoint ids; {@code --first-id N} replaces from id N instead. An import waits up to
 * {@code --lock-wait} seconds (default 600) for another import into the same store to finish. Prints one
 * {@code id<TAB>path} line per response, then a summary line. Exit status 0 on success, 1 on an
 * I/O error, 2 on bad arguments.
 */
public final class StoreImport {
    /** How long an import waits, by default, for another import into the same store to finish. */
    static final long DEFAULT_LOCK_WAIT_SECONDS = 600;
    private static final long MAX_LOCK_WAIT_SECONDS = 86_400;

    private StoreImport() {
    }

    /** Runs the import command; see the class description for arguments. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Path store = null;
        int blockSize = -1;
        int firstId = -1;
        long lockWaitSeconds = DEFAULT_LOCK_WAIT_SECONDS;
        List<Path> inputs = new ArrayList<>();
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--store" -> store = Path.of(value(args, ++i, "--store"));
                    case "--block-size" -> blockSize = Integer.parseInt(value(args, ++i, "--block-size"));
                    case "--first-id" -> firstId = Integer.parseInt(value(args, ++i, "--first-id"));
                    case "--lock-wait" -> lockWaitSeconds = Long.parseLong(value(args, ++i, "--lock-wait"));
                    case "-h", "--help" -> {
                        out.println(usage());
                        return 0;
                    }
                    default -> {
                        if (args[i].startsWith("--")) {
                            throw new IllegalArgumentException("unknown option " + args[i]);
                        }
                        inputs.add(Path.of(args[i]));
                    }
                }
            }
            if (store == null || blockSize < 1 || inputs.isEmpty()) {
                throw new IllegalArgumentException("--store, a positive --block-size and at least one input are required");
            }
            if (lockWaitSeconds < 0 || lockWaitSeconds > MAX_LOCK_WAIT_SECONDS) {
                throw new IllegalArgumentException("--lock-wait must be in [0, " + MAX_LOCK_WAIT_SECONDS + "], was "
                        + lockWaitSeconds);
            }
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage());
            err.println(usage());
            return 2;
        }
        try {
            List<Path> files = expand(inputs);
            ImportSummary summary;
            try (StoreWriter writer = StoreWriter.open(store, blockSize, Duration.ofSeconds(lockWaitSeconds))) {
                ProgressiveEncoder<byte[]> encoder = ProgressiveEncoder.fixedBlocks(blockSize);
                // Under the writer lock: a concurrent import has either committed already (and its
                // ids are in the index this writer read) or is still waiting for the lock.
                int id = firstId < 0 ? writer.nextFreeId() : firstId;
                for (Path f : files) {
                    writer.add(id, Files.readAllBytes(f), encoder);
                    out.println(id + "\t" + f);
                    id++;
                }
                summary = writer.commit();
            }
            out.printf("imported %d responses (%d blocks, %d bytes) as generation %d; the store now has %d responses%n",
                    summary.responses(), summary.blocks(), summary.bytes(), summary.generation(),
                    summary.totalResponses());
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("error: import into " + store + " failed, nothing was published: " + e.getMessage());
            return 1;
        }
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static List<Path> expand(List<Path> inputs) throws IOException {
        List<Path> files = new ArrayList<>();
        for (Path p : inputs) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> s = Files.list(p)) {
                    s.filter(Files::isRegularFile).sorted().forEach(files::add);
                }
            } else if (Files.isRegularFile(p)) {
                files.add(p);
            } else {
                throw new IOException("no such file or folder: " + p);
            }
        }
        return files;
    }

    private static String usage() {
        return "usage: StoreImport --store DIR --block-size BYTES [--first-id N] [--lock-wait SECONDS] FILE_OR_FOLDER...";
    }
}
