/**
 * Optional Micrometer binding for {@link dev.khameleon.server.KhameleonServer}'s metrics: add
 * {@code io.micrometer:micrometer-core} to your application and bind a
 * {@link dev.khameleon.server.micrometer.KhameleonMeterBinder}. Nothing else in the server needs
 * Micrometer.
 */
package dev.khameleon.server.micrometer;
