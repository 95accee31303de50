package dev.khameleon.examples.gallery;

import javax.imageio.ImageIO;
import javax.imageio.ImageReader;
import javax.imageio.stream.ImageInputStream;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.GradientPaint;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.awt.image.DataBufferByte;
import java.awt.image.PixelInterleavedSampleModel;
import java.awt.image.WritableRaster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import java.util.stream.Stream;

/**
 * Where the gallery's full-size pictures come from: deterministic synthetic pictures, or crops
 * of real photographs. Both are functions of the tile id (and a seed), so a corpus is the same
 * on every start and thread-safe to build in parallel.
 */
final class TileImages {
    private TileImages() {
    }

    /**
     * Synthetic pictures: a gradient, shapes, a fine texture (so the JPEGs have photo-like
     * sizes and many blocks) and the tile's number in large print.
     */
    static IntFunction<BufferedImage> synthetic(int width, int height, long seed) {
        return id -> {
            SplittableRandom random = new SplittableRandom(seed * 1_000_003L + id);
            BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
            Graphics2D g = image.createGraphics();
            try {
                g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
                float hue = random.nextFloat();
                g.setPaint(new GradientPaint(0, 0, Color.getHSBColor(hue, 0.6f, 0.95f),
                        width, height, Color.getHSBColor(hue + 0.35f, 0.8f, 0.45f)));
                g.fillRect(0, 0, width, height);
                for (int i = 0; i < 18; i++) {
                    g.setColor(Color.getHSBColor(random.nextFloat(), 0.4f + 0.6f * random.nextFloat(),
                            0.3f + 0.7f * random.nextFloat()));
                    int x = random.nextInt(width);
                    int y = random.nextInt(height);
                    int s = 12 + random.nextInt(width / 3);
                    switch (i % 3) {
                        case 0 -> g.fillOval(x - s / 2, y - s / 2, s, s);
                        case 1 -> g.fillRect(x - s / 2, y - s / 4, s, s / 2);
                        default -> {
                            g.setStroke(new BasicStroke(2 + random.nextInt(8)));
                            g.drawLine(x, y, x + random.nextInt(-s, s + 1), y + random.nextInt(-s, s + 1));
                        }
                    }
                }
                g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, height / 4));
                String label = "#" + id;
                int textWidth = g.getFontMetrics().stringWidth(label);
                g.setColor(new Color(0, 0, 0, 150));
                g.drawString(label, (width - textWidth) / 2 + 3, height * 3 / 5 + 3);
                g.setColor(Color.WHITE);
                g.drawString(label, (width - textWidth) / 2, height * 3 / 5);
            } finally {
                g.dispose();
            }
            addGrain(image, random);
            return image;
        };
    }

    /** Film grain: small per-pixel noise, so pictures compress like photographs, not like flat art. */
    private static void addGrain(BufferedImage image, SplittableRandom random) {
        byte[] bgr = ((DataBufferByte) image.getRaster().getDataBuffer()).getData();
        for (int i = 0; i + 2 < bgr.length; i += 3) {
            int n = random.nextInt(-10, 11);
            bgr[i] = (byte) clamp((bgr[i] & 0xFF) + n);
            bgr[i + 1] = (byte) clamp((bgr[i + 1] & 0xFF) + n);
            bgr[i + 2] = (byte) clamp((bgr[i + 2] & 0xFF) + n);
        }
    }

    private static int clamp(int v) {
        return Math.max(0, Math.min(255, v));
    }

    /** The largest photograph side accepted, in pixels (checked from the file's header). */
    static final int MAX_PHOTO_SIDE = 8192;
    /** The most pixels all photographs together may hold (checked from the headers before decoding). */
    static final long MAX_TOTAL_PIXELS = 100_000_000L;

    /**
     * Crops of the photographs in {@code dir} (PNG and JPEG files, read once), each tile a
     * seeded random crop of a seeded random photograph with the target's aspect ratio covering 30–100 % of the shorter side,
     * scaled to {@code width × height}.
     *
     * <p>Every {@code .png}, {@code .jpg} and {@code .jpeg} file must be a readable image of at
     * most {@link #MAX_PHOTO_SIDE} pixels a side, and all of them together at most
     * {@link #MAX_TOTAL_PIXELS} pixels; sizes are read from the headers before anything is decoded.
     *
     * @throws BadImagesException naming the file and the problem, if {@code dir} holds no such
     *     file, or one of them is not an image, is cut short or corrupt, or is too large
     */
    static IntFunction<BufferedImage> photoCrops(Path dir, int width, int height, long seed) {
        List<BufferedImage> photos = readPhotos(dir);
        return id -> {
            SplittableRandom random = new SplittableRandom(seed * 1_000_003L + id);
            BufferedImage photo = photos.get(random.nextInt(photos.size()));
            double aspect = (double) width / height;
            double maxW = Math.min(photo.getWidth(), photo.getHeight() * aspect);
            double scale = 0.3 + 0.7 * random.nextDouble();
            int cw = Math.max(1, (int) (maxW * scale));
            int ch = Math.max(1, (int) (cw / aspect));
            int x = random.nextInt(photo.getWidth() - cw + 1);
            int y = random.nextInt(photo.getHeight() - ch + 1);
            BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
            Graphics2D g = out.createGraphics();
            try {
                g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BICUBIC);
                g.drawImage(photo, 0, 0, width, height, x, y, x + cw, y + ch, null);
            } finally {
                g.dispose();
            }
            return out;
        };
    }

    /**
     * A problem with the photographs given to {@link #photoCrops}: the message names the file (or
     * folder) and what is wrong, in one line meant for the user.
     */
    static final class BadImagesException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        BadImagesException(String message) {
            super(message);
        }
    }

    /**
     * The photographs {@link #photoCrops} would read from {@code dir}: its {@code *.png}, {@code *.jpg} and
     * {@code *.jpeg} files, sorted by name; nothing is opened.
     *
     * @throws BadImagesException if {@code dir} cannot be listed or holds no such file
     */
    static List<Path> photoFiles(Path dir) {
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> {
                String name = p.getFileName().toString().toLowerCase(Locale.ROOT);
                return name.endsWith(".png") || name.endsWith(".jpg") || name.endsWith(".jpeg");
            }).filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new BadImagesException("cannot list the images in " + dir + ": " + e.getMessage());
        }
        if (files.isEmpty()) {
            throw new BadImagesException("no PNG or JPEG images (*.png, *.jpg, *.jpeg) in " + dir);
        }
        return files;
    }

    private static List<BufferedImage> readPhotos(Path dir) {
        List<Path> files = photoFiles(dir);
        // Sizes first, from the headers alone: a huge picture is refused before it is decoded.
        long totalPixels = 0;
        for (Path file : files) {
            long[] size = withReader(file, reader -> new long[] {reader.getWidth(0), reader.getHeight(0)});
            if (size[0] > MAX_PHOTO_SIDE || size[1] > MAX_PHOTO_SIDE) {
                throw new BadImagesException(file + " is " + size[0] + " x " + size[1] + " pixels; at most "
                        + MAX_PHOTO_SIDE + " a side are accepted");
            }
            totalPixels += size[0] * size[1];
            if (totalPixels > MAX_TOTAL_PIXELS) {
                throw new BadImagesException("the images in " + dir + " hold more than " + MAX_TOTAL_PIXELS / 1_000_000
                        + " megapixels together (reached at " + file.getFileName() + "); use fewer or smaller ones");
            }
        }
        List<BufferedImage> photos = new ArrayList<>(files.size());
        for (Path file : files) {
            photos.add(withReader(file, reader -> {
                List<String> warnings = new ArrayList<>();
                reader.addIIOReadWarningListener((source, warning) -> warnings.add(warning));
                BufferedImage image = reader.read(0);
                if (!warnings.isEmpty()) {
                    // ImageIO decodes a JPEG cut short with only a warning; a gallery of grey halves helps nobody.
                    throw new IOException(warnings.get(0));
                }
                return image;
            }));
        }
        return photos;
    }

    /** What {@code body} reads with an ImageIO reader on {@code file}, with any failure as a {@link BadImagesException}. */
    private static <T> T withReader(Path file, ReaderBody<T> body) {
        try (ImageInputStream in = ImageIO.createImageInputStream(file.toFile())) {
            if (in == null) {
                throw new BadImagesException("cannot open " + file);
            }
            Iterator<ImageReader> readers = ImageIO.getImageReaders(in);
            if (!readers.hasNext()) {
                throw new BadImagesException(file + " is not a PNG or JPEG image");
            }
            ImageReader reader = readers.next();
            try {
                reader.setInput(in, true, true);
                return body.apply(reader);
            } finally {
                reader.dispose();
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof BadImagesException bad) {
                throw bad;
            }
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            throw new BadImagesException("cannot read " + file + ": cut short or corrupt (" + why + ")");
        }
    }

    @FunctionalInterface
    private interface ReaderBody<T> {
        T apply(ImageReader reader) throws IOException;
    }

    /**
     * The pixels of {@code image} as {@code 0xRRGGBB}, row-major: read straight from the bytes of
     * the gallery's own pictures ({@code TYPE_3BYTE_BGR}, a third of the time {@link BufferedImage#getRGB}
     * takes), the same values either way.
     */
    static int[] rgb(BufferedImage image) {
        int sw = image.getWidth();
        int sh = image.getHeight();
        WritableRaster raster = image.getRaster();
        if (image.getType() == BufferedImage.TYPE_3BYTE_BGR && raster.getParent() == null
                && raster.getSampleModelTranslateX() == 0 && raster.getSampleModelTranslateY() == 0
                && raster.getSampleModel() instanceof PixelInterleavedSampleModel model
                && model.getPixelStride() == 3 && model.getScanlineStride() == 3 * sw
                && raster.getDataBuffer() instanceof DataBufferByte bytes && bytes.getOffset() == 0
                && bytes.getNumBanks() == 1) {
            byte[] bgr = bytes.getData();
            int[] band = model.getBandOffsets(); // red, green, blue
            int[] rgb = new int[sw * sh];
            for (int i = 0, o = 0; i < rgb.length; i++, o += 3) {
                rgb[i] = (bgr[o + band[0]] & 0xFF) << 16 | (bgr[o + band[1]] & 0xFF) << 8 | (bgr[o + band[2]] & 0xFF);
            }
            return rgb;
        }
        return image.getRGB(0, 0, sw, sh, null, 0, sw);
    }

    /**
     * {@code image} scaled down to {@code width × height} by averaging the box of source pixels
     * under each thumbnail pixel (a fair, fast thumbnail; the source must be at least as large).
     */
    static BufferedImage thumbnail(BufferedImage image, int width, int height) {
        int sw = image.getWidth();
        int sh = image.getHeight();
        int[] src = rgb(image);
        BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
        int[] row = new int[width];
        for (int ty = 0; ty < height; ty++) {
            int y0 = ty * sh / height;
            int y1 = Math.max(y0 + 1, (ty + 1) * sh / height);
            for (int tx = 0; tx < width; tx++) {
                int x0 = tx * sw / width;
                int x1 = Math.max(x0 + 1, (tx + 1) * sw / width);
                long r = 0;
                long g = 0;
                long b = 0;
                for (int y = y0; y < y1; y++) {
                    for (int x = x0; x < x1; x++) {
                        int p = src[y * sw + x];
                        r += (p >> 16) & 0xFF;
                        g += (p >> 8) & 0xFF;
                        b += p & 0xFF;
                    }
                }
                long n = (long) (y1 - y0) * (x1 - x0);
                row[tx] = (int) ((r + n / 2) / n) << 16 | (int) ((g + n / 2) / n) << 8 | (int) ((b + n / 2) / n);
            }
            out.setRGB(0, ty, width, 1, row, 0, width);
        }
        return out;
    }
}
