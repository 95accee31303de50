/**
 * Spring Boot auto-configuration for Khameleon: define one or more
 * {@link dev.khameleon.server.Application} beans and {@link dev.khameleon.spring.KhameleonAutoConfiguration}
 * runs a {@link dev.khameleon.server.KhameleonServer} for them, on its own port, configured from the
 * {@code khameleon.*} properties ({@link dev.khameleon.spring.KhameleonProperties}); a package-private
 * lifecycle starts it once the context is refreshed and closes it gracefully on shutdown.
 */
package dev.khameleon.spring;
