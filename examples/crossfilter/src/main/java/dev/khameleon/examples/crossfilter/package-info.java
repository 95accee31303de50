/**
 * Linked histograms ("crossfilter") over the flights data, or another table, on a real database.
 *
 * <p>A tour: {@link dev.khameleon.examples.crossfilter.FlightsTable} reads the CSV and samples
 * larger tables from it; a {@link dev.khameleon.examples.crossfilter.TileBackend} (DuckDB
 * embedded, or PostgreSQL through {@link dev.khameleon.examples.crossfilter.PostgresCluster})
 * answers the two kinds of query in SQL over the table of a
 * {@link dev.khameleon.examples.crossfilter.Views} configuration (built, or read from a JSON file;
 * the six flights views are {@code Views.flights()}, other tables need a file only, loaded by
 * {@code TableLoader}); its {@link dev.khameleon.examples.crossfilter.View}s, each binned by
 * {@link dev.khameleon.examples.crossfilter.Bins}, and the brushes on them
 * ({@link dev.khameleon.examples.crossfilter.Filters}) key Falcon's
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
