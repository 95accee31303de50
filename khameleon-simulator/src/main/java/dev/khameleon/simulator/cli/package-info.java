/**
 * The simulator's picocli subcommands ({@code simulate}, {@code experiment}), registered in
 * {@link dev.khameleon.simulator.tool.Cli}.
 */
package dev.khameleon.simulator.cli;
