/**
 * Contract test kits: abstract JUnit 5 classes that pin down what each SPI promises. The
 * built-ins extend them; extend one in a few lines to check your own implementation
 * (depend on {@code khameleon-core}'s {@code test-jar}, scope {@code test}). Also fixtures for
 * tests of applications built on the SPIs, such as {@link dev.khameleon.core.testkit.KeyedBlockSource}.
 */
package dev.khameleon.core.testkit;
