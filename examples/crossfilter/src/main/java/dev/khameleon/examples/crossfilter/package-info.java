/**
 * Linked histograms ("crossfilter") over the flights data on a real database.
 *
 * <p>A tour: {@link dev.khameleon.examples.crossfilter.FlightsTable} reads the CSV and samples
 * larger tables from it; a {@link dev.khameleon.examples.crossfilter.TileBackend} (DuckDB
 * embedded, or PostgreSQL through {@link dev.khameleon.examples.crossfilter.PostgresCluster})
 * answers the two kinds of query in SQL; the six {@link dev.khameleon.examples.crossfilter.View}s
 * and the brushes on them ({@link dev.khameleon.examples.crossfilter.Filters}) key Falcon's
 * cumulative-count {@link dev.khameleon.examples.crossfilter.Tile}s, which a
 * {@link dev.khameleon.examples.crossfilter.TileCache} computes once per key with bounded backend
 * concurrency. {@link dev.khameleon.examples.crossfilter.TileEncoder} makes a tile progressive
 * (coarse rows first); {@link dev.khameleon.examples.crossfilter.Workflows} reads the crossfilter
 * benchmark's recorded sessions, and {@link dev.khameleon.examples.crossfilter.CrossfilterMain}
 * replays them to compare on-demand queries with Falcon's tiles.
 * {@link dev.khameleon.examples.crossfilter.CrossfilterServer} serves the tiles live: a page and a
 * Khameleon WebSocket whose requests are the views, bound per session to the tiles of the
 * client's brushes.
 */
package dev.khameleon.examples.crossfilter;
