package dev.khameleon.core.image;

import org.junit.jupiter.api.Assumptions;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.GradientPaint;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Images for tests: deterministic synthetic pictures, and the real Kodak photos when present. */
final class TestImages {
    private TestImages() {
    }

    /** A deterministic picture with gradients, shapes and text, seeded by {@code seed}. */
    static BufferedImage synthetic(int width, int height, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setPaint(new GradientPaint(0, 0, new Color(random.nextInt(0xFFFFFF)),
                    width, height, new Color(random.nextInt(0xFFFFFF))));
            g.fillRect(0, 0, width, height);
            for (int i = 0; i < 12; i++) {
                g.setColor(new Color(random.nextInt(0xFFFFFF)));
                int x = random.nextInt(width);
                int y = random.nextInt(height);
                int s = 10 + random.nextInt(Math.max(11, width / 3));
                if (i % 2 == 0) {
                    g.fillOval(x - s / 2, y - s / 2, s, s);
                } else {
                    g.setStroke(new BasicStroke(1 + random.nextInt(6)));
                    g.drawRect(x - s / 2, y - s / 3, s, s * 2 / 3);
                }
            }
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, Math.max(10, height / 8)));
            g.drawString("Khameleon " + seed, width / 10, height / 2);
        } finally {
            g.dispose();
        }
        return image;
    }

    /** The Kodak photos directory, or a skipped test naming the missing path. */
    static Path kodakDir() {
        Path dir = Path.of(System.getProperty("khameleon.shared.data", "../shared/data"), "images", "kodak");
        Assumptions.assumeTrue(Files.isDirectory(dir), "Kodak images absent: " + dir.toAbsolutePath());
        return dir;
    }

    /** The first {@code count} Kodak photos (kodim01.png, ...), skipping the test if absent. */
    static List<BufferedImage> kodak(int count) {
        Path dir = kodakDir();
        List<BufferedImage> images = new ArrayList<>(count);
        for (int i = 1; i <= count; i++) {
            Path file = dir.resolve(String.format("kodim%02d.png", i));
            Assumptions.assumeTrue(Files.isRegularFile(file), "Kodak image absent: " + file.toAbsolutePath());
            try {
                images.add(ImageIO.read(file.toFile()));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return images;
    }
}
