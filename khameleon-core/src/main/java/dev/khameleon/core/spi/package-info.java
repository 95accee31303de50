/**
 * Extension points: what an application implements (or takes a built-in of) to use Khameleon —
 * {@link dev.khameleon.core.spi.ProgressiveEncoder}, {@link dev.khameleon.core.spi.BlockSource},
 * {@link dev.khameleon.core.spi.UtilityFunction}, the two predictor halves
 * {@link dev.khameleon.core.spi.ClientPredictor} and {@link dev.khameleon.core.spi.ServerPredictor},
 * {@link dev.khameleon.core.spi.Layout} and {@link dev.khameleon.core.spi.Scheduler}. Built-ins
 * come from static factories on each interface; the one a user may name as a type,
 * {@link dev.khameleon.core.spi.GridLayout}, lives here beside its interface, so this package
 * depends on the model and never the other way round.
 */
package dev.khameleon.core.spi;
