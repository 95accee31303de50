/**
 * JMH benchmarks: {@link dev.khameleon.bench.jmh.SchedulerBenchmark} compares the fast greedy
 * scheduler with the paper's Listing 1. Built into {@code khameleon-bench/target/benchmarks.jar},
 * whose {@link dev.khameleon.bench.jmh.BenchmarksMain} prints usage when run without arguments;
 * the commands and results are in {@code docs/benchmarks.md}.
 */
package dev.khameleon.bench.jmh;
