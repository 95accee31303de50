package dev.khameleon.examples.gallery;

import dev.khameleon.core.Block;
import dev.khameleon.core.image.MeasuredUtility;
import dev.khameleon.core.image.ProgressiveJpegEncoder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A folder of built corpora, so that a gallery started again with the same settings loads its
 * pictures' blocks instead of encoding them again.
 *
 * <p>A corpus is a function of its settings (the pictures' source, their sizes, the encoder's
 * settings) and of the code that makes it. The <em>key</em> is that, written out as text: the
 * caller's settings, the gallery's version, a hash of the class files that draw, encode and
 * measure the pictures (so a rebuilt encoder misses even under an unchanged {@code -SNAPSHOT}
 * version), and the Java runtime (whose ImageIO writes the JPEGs). Each corpus is one file
 * named by the key's hash, {@code corpus-<hash>.bin}; it holds the whole key and ends with a
 * SHA-256 of everything before it. A file whose key differs, that is cut short, or whose digest
 * does not match is reported in one log line and rebuilt, never served. Files are written to a
 * temporary file in the same folder and renamed into place, so a run killed while writing leaves
 * no file that could pass as a corpus.
 *
 * <p>Thread-safe; several galleries may share a folder (the last to write a key wins, with the
 * same bytes).
 */
final class CorpusCache {
    private static final Logger log = LoggerFactory.getLogger(CorpusCache.class);
    /** The file format; bump it when the layout below changes. */
    static final int FORMAT = 1;
    private static final byte[] MAGIC = "KHGCORP1".getBytes(StandardCharsets.US_ASCII);
    private static final int DIGEST_BYTES = 32;
    /** Temporary files older than this are left by a run that was killed while writing: removed. */
    private static final Duration STALE_TEMPORARY = Duration.ofHours(1);

    /** The classes whose code decides a corpus's bytes; their class files are hashed into the key. */
    private static final List<Class<?>> CODE = List.of(Corpus.class, CorpusCache.class, TileImages.class,
            ProgressiveJpegEncoder.class, MeasuredUtility.class, Block.class);
    /** Package-private classes of the encoder, found beside {@link ProgressiveJpegEncoder}. */
    private static final List<String> ENCODER_INTERNALS = List.of("JpegScans.class", "Ssim.class");

    private final Path dir;

    /** A cache in {@code dir}, created when first written to. */
    CorpusCache(Path dir) {
        this.dir = dir.toAbsolutePath();
    }

    /**
     * The default folder: {@code $XDG_CACHE_HOME/khameleon/gallery} if that variable names an
     * absolute path, else {@code ~/.cache/khameleon/gallery}.
     */
    static Path defaultDirectory() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute() ? Path.of(xdg)
                : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("khameleon").resolve("gallery");
    }

    /** The folder. */
    Path directory() {
        return dir;
    }

    /**
     * The key of a corpus made with {@code settings} (name to value, in a fixed order): one
     * {@code name=value} line each, after the format, the gallery's version, the code's hash and
     * the Java runtime.
     */
    static String key(Map<String, String> settings) {
        StringBuilder key = new StringBuilder();
        key.append("format=").append(FORMAT).append('\n');
        key.append("gallery=").append(galleryVersion()).append('\n');
        key.append("code=").append(codeHash()).append('\n');
        key.append("java=").append(System.getProperty("java.vendor")).append(' ')
                .append(System.getProperty("java.runtime.version")).append('\n');
        settings.forEach((name, value) -> key.append(name).append('=').append(value).append('\n'));
        return key.toString();
    }

    /** The file that holds the corpus of {@code key}. */
    Path fileFor(String key) {
        return dir.resolve("corpus-" + HexFormat.of().formatHex(sha256(key.getBytes(StandardCharsets.UTF_8)), 0, 10)
                + ".bin");
    }

    /** Where a corpus came from, as {@link #loadOrBuild} found it. */
    enum Source {
        /** Read from the cache. */
        LOADED,
        /** Built: there was no file for the key. */
        BUILT,
        /** Built: the file for the key was unusable (cut short, corrupt, another key) and was replaced. */
        REBUILT
    }

    /** A corpus and where it came from. */
    record Result(Corpus corpus, Source source, Path file) {
    }

    /**
     * The corpus of {@code key}: loaded from its file if that is whole and holds this key, else
     * made by {@code build} and written to the file. A file that is there but unusable is named in
     * one warning; a file that cannot be written is too, and the built corpus is returned anyway.
     */
    Result loadOrBuild(String key, Supplier<Corpus> build) {
        Path file = fileFor(key);
        Source source = Source.BUILT;
        if (Files.exists(file)) { // else the first run with these settings (or a folder that cannot be, see below)
            try {
                return new Result(read(file, key), Source.LOADED, file);
            } catch (NoSuchFileException removedMeanwhile) {
                // Another gallery replacing it: build as on a first run.
            } catch (IOException | RuntimeException unusable) {
                log.warn("the corpus cache {} is unusable ({}); building the corpus again", file, describe(unusable));
                source = Source.REBUILT;
            }
        }
        Corpus corpus = build.get();
        try {
            write(file, key, corpus);
        } catch (IOException | RuntimeException e) {
            log.warn("cannot write the corpus cache {} ({}); the next start builds the corpus again", file, describe(e));
        }
        return new Result(corpus, source, file);
    }

    private static String describe(Exception e) {
        if (e instanceof EOFException) {
            return "cut short";
        }
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return e.getClass().getSimpleName();
        }
        // Our own reasons are plain IOExceptions; the JDK's (FileAlreadyExistsException: path, ...) need their name.
        return e.getClass() == IOException.class ? message.strip() : e.getClass().getSimpleName() + ": " + message.strip();
    }

    /**
     * Reads the corpus of {@code key} from {@code file}.
     *
     * @throws NoSuchFileException if there is no such file
     * @throws EOFException if it is cut short
     * @throws IOException naming the problem, if it is not a corpus file, holds another key, is
     *     corrupt or has bytes after its digest
     */
    static Corpus read(Path file, String key) throws IOException {
        long fileSize = Files.size(file);
        MessageDigest sha = newSha256();
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
             DigestInputStream digesting = new DigestInputStream(raw, sha);
             DataInputStream in = new DataInputStream(digesting)) {
            byte[] magic = new byte[MAGIC.length];
            in.readFully(magic);
            if (!Arrays.equals(magic, MAGIC)) {
                throw new IOException("not a corpus file of format " + FORMAT);
            }
            byte[] storedKey = readBytes(in, fileSize);
            if (!Arrays.equals(storedKey, key.getBytes(StandardCharsets.UTF_8))) {
                throw new IOException("it holds the corpus of other settings");
            }
            int rows = in.readInt();
            int cols = in.readInt();
            int thumbWidth = in.readInt();
            int thumbHeight = in.readInt();
            int fullWidth = in.readInt();
            int fullHeight = in.readInt();
            long tiles = (long) rows * cols;
            if (rows < 1 || cols < 1 || tiles > fileSize) {
                throw new IOException("corrupt: " + rows + " x " + cols + " tiles");
            }
            int samples = in.readInt();
            int points = in.readInt();
            if (points < 1 || points > fileSize) {
                throw new IOException("corrupt: a utility curve of " + points + " points");
            }
            double[] fractions = new double[points];
            double[] utilities = new double[points];
            for (int i = 0; i < points; i++) {
                fractions[i] = in.readDouble();
            }
            for (int i = 0; i < points; i++) {
                utilities[i] = in.readDouble();
            }
            byte[] mosaic = readBytes(in, fileSize);
            List<List<Block>> blocks = new ArrayList<>((int) tiles);
            for (int id = 0; id < tiles; id++) {
                int count = in.readInt();
                if (count < 1 || count > fileSize) {
                    throw new IOException("corrupt: " + count + " blocks for tile " + id);
                }
                Block[] response = new Block[count];
                for (int index = 0; index < count; index++) {
                    int padding = in.readInt();
                    response[index] = Block.wrap(id, index, count, readBytes(in, fileSize), padding);
                }
                blocks.add(List.of(response));
            }
            digesting.on(false);
            byte[] stored = new byte[DIGEST_BYTES];
            in.readFully(stored);
            if (!MessageDigest.isEqual(stored, sha.digest())) {
                throw new IOException("corrupt: its SHA-256 does not match");
            }
            if (in.read() != -1) {
                throw new IOException("corrupt: bytes after its end");
            }
            MeasuredUtility utility;
            try {
                utility = MeasuredUtility.of(fractions, utilities, samples);
            } catch (IllegalArgumentException e) {
                throw new IOException("corrupt: " + e.getMessage(), e);
            }
            return new Corpus(rows, cols, thumbWidth, thumbHeight, fullWidth, fullHeight, blocks, mosaic, utility);
        }
    }

    private static byte[] readBytes(DataInputStream in, long fileSize) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > fileSize) {
            throw new IOException("corrupt: a length of " + length + " bytes in a file of " + fileSize);
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return bytes;
    }

    /**
     * Writes {@code corpus} as the corpus of {@code key} to {@code file}: to a temporary file
     * beside it, flushed to disk, then renamed over {@code file}.
     */
    void write(Path file, String key, Corpus corpus) throws IOException {
        Files.createDirectories(dir);
        removeStaleTemporaries();
        Path temporary = Files.createTempFile(dir, file.getFileName() + ".", ".tmp");
        try {
            MessageDigest sha = newSha256();
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                OutputStream buffered = new BufferedOutputStream(Channels.newOutputStream(channel), 1 << 16);
                DigestOutputStream digesting = new DigestOutputStream(buffered, sha);
                DataOutputStream out = new DataOutputStream(digesting);
                out.write(MAGIC);
                writeBytes(out, key.getBytes(StandardCharsets.UTF_8));
                out.writeInt(corpus.rows());
                out.writeInt(corpus.cols());
                out.writeInt(corpus.thumbWidth());
                out.writeInt(corpus.thumbHeight());
                out.writeInt(corpus.fullWidth());
                out.writeInt(corpus.fullHeight());
                MeasuredUtility utility = corpus.utility();
                double[] fractions = utility.fractions();
                double[] utilities = utility.utilities();
                out.writeInt(utility.sampleCount());
                out.writeInt(fractions.length);
                for (double f : fractions) {
                    out.writeDouble(f);
                }
                for (double u : utilities) {
                    out.writeDouble(u);
                }
                writeBytes(out, corpus.mosaicJpeg());
                for (List<Block> response : corpus.blocks()) {
                    out.writeInt(response.size());
                    for (Block block : response) {
                        out.writeInt(block.padding());
                        writeBytes(out, block.payloadBytes());
                    }
                }
                digesting.on(false);
                out.write(sha.digest());
                out.flush();
                channel.force(true);
            }
            try {
                Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] bytes) throws IOException {
        out.writeInt(bytes.length);
        out.write(bytes);
    }

    /** Removes the temporary files of writes that were killed (older than {@link #STALE_TEMPORARY}). */
    private void removeStaleTemporaries() {
        long before = System.currentTimeMillis() - STALE_TEMPORARY.toMillis();
        try (DirectoryStream<Path> temporaries = Files.newDirectoryStream(dir, "corpus-*.bin.*.tmp")) {
            for (Path t : temporaries) {
                if (Files.getLastModifiedTime(t).toMillis() < before) {
                    Files.deleteIfExists(t);
                }
            }
        } catch (IOException e) {
            log.debug("cannot clean up temporary files in {}", dir, e);
        }
    }

    private static String galleryVersion() {
        try {
            return GalleryVersion.version();
        } catch (IllegalStateException e) {
            return "unknown"; // run from classes the build did not filter: the code hash still tells versions apart
        }
    }

    /** SHA-256 of the class files in {@link #CODE} and {@link #ENCODER_INTERNALS}, in hex. */
    static String codeHash() {
        MessageDigest sha = newSha256();
        for (Class<?> c : CODE) {
            hashResource(sha, c, c.getSimpleName() + ".class");
        }
        for (String internal : ENCODER_INTERNALS) {
            hashResource(sha, ProgressiveJpegEncoder.class, internal);
        }
        return HexFormat.of().formatHex(sha.digest(), 0, 16);
    }

    private static void hashResource(MessageDigest sha, Class<?> beside, String name) {
        sha.update(name.getBytes(StandardCharsets.UTF_8));
        try (InputStream in = beside.getResourceAsStream(name)) {
            if (in == null) {
                sha.update((byte) 0); // not found: the key says so, and is stable
                return;
            }
            sha.update(in.readAllBytes());
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the class file " + name, e);
        }
    }

    private static byte[] sha256(byte[] bytes) {
        return newSha256().digest(bytes);
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
