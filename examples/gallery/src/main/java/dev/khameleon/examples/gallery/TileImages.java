package dev.khameleon.examples.gallery;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.GradientPaint;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.awt.image.DataBufferByte;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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

    /**
     * Crops of the photographs in {@code dir} (PNG and JPEG files, read once), each tile a
     * seeded random crop of a seeded random photograph with the target's aspect ratio covering 30–100 % of the shorter side,
     * scaled to {@code width × height}.
     *
     * @throws IllegalArgumentException if {@code dir} holds no readable image
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

    private static List<BufferedImage> readPhotos(Path dir) {
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.filter(p -> {
                String name = p.getFileName().toString().toLowerCase(Locale.ROOT);
                return name.endsWith(".png") || name.endsWith(".jpg") || name.endsWith(".jpeg");
            }).sorted().toList();
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot list images in " + dir + ": " + e.getMessage(), e);
        }
        List<BufferedImage> photos = new ArrayList<>();
        for (Path file : files) {
            try {
                BufferedImage image = ImageIO.read(file.toFile());
                if (image != null) {
                    photos.add(image);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + file, e);
            }
        }
        if (photos.isEmpty()) {
            throw new IllegalArgumentException("no PNG or JPEG images in " + dir);
        }
        return photos;
    }

    /**
     * {@code image} scaled down to {@code width × height} by averaging the box of source pixels
     * under each thumbnail pixel (a fair, fast thumbnail; the source must be at least as large).
     */
    static BufferedImage thumbnail(BufferedImage image, int width, int height) {
        int sw = image.getWidth();
        int sh = image.getHeight();
        int[] src = image.getRGB(0, 0, sw, sh, null, 0, sw);
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
