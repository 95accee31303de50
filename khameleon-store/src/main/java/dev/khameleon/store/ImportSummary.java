package dev.khameleon.store;

/**
 * What one committed import added to a store.
 *
 * @param generation the index generation the import published (0 if nothing was published)
 * @param responses the number of responses written by this import
 * @param blocks the number of blocks written by this import
 * @param bytes the number of bytes the new segment file occupies on disk
 * @param totalResponses the number of responses in the store after the import
 */
public record ImportSummary(long generation, int responses, long blocks, long bytes, int totalResponses) {
}
