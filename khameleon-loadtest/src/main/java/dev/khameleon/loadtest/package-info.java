/**
 * The load-test tool ({@code khameleon-loadtest}): the soak under hostile clients and the server load
 * ({@code server}), the proxy overhead and its HAProxy process ({@code server}, {@code proxy}), the
 * fleet rig ({@code fleet}) and the file store's read strategies ({@code store}), under one command line,
 * {@link dev.khameleon.loadtest.Cli}. Only this module depends on s3proxy, the tiers and the process rigs.
 */
package dev.khameleon.loadtest;
