/**
 * JMH benchmarks: {@link dev.khameleon.microbench.SchedulerBenchmark} compares the fast greedy
 * scheduler with the paper's Listing 1. Built into {@code khameleon-microbench/target/benchmarks.jar},
 * whose {@link dev.khameleon.microbench.BenchmarksMain} prints usage when run without arguments;
 * the commands and results are in {@code docs/benchmarks.md}.
 */
package dev.khameleon.microbench;
