/**
 * A persistent, crash-safe file-system {@link dev.khameleon.core.spi.BlockSource}.
 *
 * <p>Tour: {@link dev.khameleon.store.FileBlockStore} is the source a server reads from,
 * configured by one builder; {@link dev.khameleon.store.StoreWriter} imports responses (through
 * any {@link dev.khameleon.core.spi.ProgressiveEncoder}) and publishes them atomically;
 * {@link dev.khameleon.store.ReadStrategy} names the interchangeable read strategies
 * ({@code naive}, {@code serialized-readahead}, {@code schedule-aware});
 * {@link dev.khameleon.store.DirectIo} chooses between page-cache reads and {@code O_DIRECT};
 * {@link dev.khameleon.store.StoreImport} is the command-line import. The on-disk format is
 * specified in {@code docs/file-store.md}; everything else in the package is package-private.
 */
package dev.khameleon.store;
