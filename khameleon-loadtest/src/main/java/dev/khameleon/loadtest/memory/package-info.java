/** Memory the server holds per session: {@code khameleon-loadtest footprint}. */
package dev.khameleon.loadtest.memory;
