/**
 * The image-gallery example: a mosaic of thumbnails whose hovered tile shows the full image, a
 * progressive JPEG pushed by Khameleon into the browser's cache before the pointer gets there.
 *
 * <p>{@link dev.khameleon.examples.gallery.GalleryMain} is the command line;
 * {@link dev.khameleon.examples.gallery.GalleryServer} starts everything (corpus, web site,
 * Khameleon endpoint, the proxy that emulates a slow link and guards both) and is what tests start.
 */
package dev.khameleon.examples.gallery;
