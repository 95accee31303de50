package dev.khameleon.store;

/**
 * Whether a {@link FileBlockStore} reads through the operating system's page cache or with
 * {@code O_DIRECT}, bypassing it.
 *
 * <p>{@code O_DIRECT} makes every read go to the device, which is what an honest cold-cache
 * measurement needs; it is also what a server with a corpus much larger than memory sees. Not
 * every file system supports it (tmpfs does not), hence {@link #AUTO}.
 */
public enum DirectIo {
    /** Buffered reads through the page cache (the default). */
    OFF,
    /** {@code O_DIRECT} when the file system supports it, otherwise buffered reads. */
    AUTO,
    /** {@code O_DIRECT} or fail to open the store with an error naming the file. */
    REQUIRED
}
