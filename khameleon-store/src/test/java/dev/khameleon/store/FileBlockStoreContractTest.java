package dev.khameleon.store;

import dev.khameleon.core.spi.BlockSource;
import dev.khameleon.core.testkit.BlockSourceContract;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** {@link FileBlockStore} keeps the promises of every {@link BlockSource}, with each read strategy. */
class FileBlockStoreContractTest {

    /** A store over a random corpus of 40 responses in 1,000-byte blocks (not a power of two on purpose). */
    abstract static class StoreContract extends BlockSourceContract {
        @TempDir
        Path dir;
        private FileBlockStore store;

        abstract ReadStrategy strategy();

        @Override
        protected BlockSource source() {
            if (store == null) {
                try {
                    Corpus.random(7, 40, 1000, 9 * 1000).importInto(dir);
                    store = FileBlockStore.builder(dir).strategy(strategy()).build();
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return store;
        }

        @AfterEach
        void close() {
            if (store != null) {
                store.close();
            }
        }
    }

    @Nested
    class Naive extends StoreContract {
        @Override
        ReadStrategy strategy() {
            return ReadStrategy.NAIVE;
        }
    }

    @Nested
    class SerializedReadAhead extends StoreContract {
        @Override
        ReadStrategy strategy() {
            return ReadStrategy.SERIALIZED_READAHEAD;
        }
    }

    @Nested
    class ScheduleAware extends StoreContract {
        @Override
        ReadStrategy strategy() {
            return ReadStrategy.SCHEDULE_AWARE;
        }
    }
}
