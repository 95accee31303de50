/**
 * The simulator's command line, {@link dev.khameleon.simulator.tool.Cli}: the root command that lists
 * every command of the other packages. Nothing imports this package but the load-test tool, which
 * shares its error reporting, so the command packages never depend on one another through it.
 */
package dev.khameleon.simulator.tool;
