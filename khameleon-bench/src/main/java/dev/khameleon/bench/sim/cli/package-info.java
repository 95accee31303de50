/**
 * The simulator's picocli subcommands ({@code simulate}, {@code experiment}), registered in
 * {@link dev.khameleon.bench.Cli}.
 */
package dev.khameleon.bench.sim.cli;
