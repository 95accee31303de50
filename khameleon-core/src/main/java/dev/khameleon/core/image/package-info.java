/**
 * Progressive images for Khameleon: {@link dev.khameleon.core.image.ProgressiveJpegEncoder}
 * cuts a progressive JPEG into fixed-size blocks whose first block already renders a
 * full-frame preview; {@link dev.khameleon.core.image.Ssim} measures image similarity; and
 * {@link dev.khameleon.core.image.MeasuredUtility} turns the mean SSIM of block prefixes over
 * sample images into a {@link dev.khameleon.core.spi.UtilityFunction}, so the scheduler's
 * utility is measured rather than guessed.
 *
 * <p>Everything here uses {@code javax.imageio} only and keeps no global state (no
 * {@code ImageIO.setUseCache}); all public types are immutable and thread-safe.
 */
package dev.khameleon.core.image;
