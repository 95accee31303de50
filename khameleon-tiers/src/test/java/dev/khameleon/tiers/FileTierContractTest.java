package dev.khameleon.tiers;

import dev.khameleon.core.Block;
import dev.khameleon.core.spi.ProgressiveEncoder;
import dev.khameleon.store.FileBlockStore;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The tier contract for the file tier alone, over a real {@link FileBlockStore} in a temporary directory. */
class FileTierContractTest extends StoreTierContract {
    @TempDir
    Path dir;
    private FileBlockStore store;

    @Override
    Tier tier(StoredResponse held) throws Exception {
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < held.count(); i++) {
            blocks.add(held.block((int) HELD, i));
        }
        // The store's request ids are the content keys: it holds HELD (0) and nothing else.
        FileBlockStore.importResponses(dir, new ProgressiveEncoder<List<Block>>() {
            @Override
            public int blockSize() {
                return held.blockSize();
            }

            @Override
            public List<Block> encode(int requestId, List<Block> response) {
                return response;
            }
        }, (int) HELD, List.of(blocks));
        store = FileBlockStore.open(dir);
        return new FileTier(store, counters);
    }

    @Override
    boolean keepsWhatComesBack() {
        return false;
    }

    @Override
    void breakStore() {
        // A closed store fails every read.
        store.close();
    }

    @Override
    Class<?> failureLogger() {
        return TieredBlockSource.class;
    }

    @Override
    String failureWarning() {
        return "failed to read content " + HELD + " (java.lang.IllegalStateException";
    }

    @Override
    void closeStore() {
        if (store != null) {
            store.close();
        }
    }
}
