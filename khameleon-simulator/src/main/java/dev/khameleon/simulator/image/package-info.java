/**
 * Bench command-line tools for progressive images: {@code utility} measures the SSIM utility
 * curve of {@link dev.khameleon.core.image.ProgressiveJpegEncoder} on a folder of photographs.
 */
package dev.khameleon.simulator.image;
