package dev.khameleon.simulator.image;

import dev.khameleon.core.image.MeasuredUtility;
import dev.khameleon.core.image.ProgressiveJpegEncoder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import dev.khameleon.simulator.FlagNames;
import dev.khameleon.simulator.GridSize;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code utility}: measures the mean SSIM of block prefixes of progressive JPEGs over the
 * photographs in a folder and prints the curve as a Markdown table — the utility function to
 * give the scheduler for that kind of image.
 */
@Command(name = "utility", mixinStandardHelpOptions = true,
        description = "Measure the SSIM utility curve of progressive JPEG block prefixes on a folder of images.")
public final class UtilityCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--images", required = true, paramLabel = "DIR", description = "folder of PNG/JPEG photographs")
    Path images;

    @Option(names = "--block-size", description = "bytes per block (default: ${DEFAULT-VALUE})")
    int blockSize = ProgressiveJpegEncoder.DEFAULT_BLOCK_SIZE;

    @Option(names = "--quality", description = "JPEG quality in (0, 1] (default: ${DEFAULT-VALUE})")
    float quality = ProgressiveJpegEncoder.DEFAULT_QUALITY;

    @Option(names = "--points", description = "points of the curve (default: ${DEFAULT-VALUE})")
    int points = 10;

    @Option(names = "--limit", description = "use at most this many images, in name order (default: all)")
    int limit = Integer.MAX_VALUE;

    @Option(names = "--size", paramLabel = "WIDTHxHEIGHT",
            description = "scale every image to this size first, e.g. 480x360 for the gallery's pictures (default: as stored)")
    String size;

    /** The encoder's and the measurement's names for the settings, and the options that set them. */
    private static final java.util.Map<String, String> FLAGS = java.util.Map.of("blockSize", "--block-size",
            "quality", "--quality", "points", "--points");

    @Override
    public Integer call() throws IOException {
        ProgressiveJpegEncoder encoder;
        try {
            encoder = ProgressiveJpegEncoder.builder().blockSize(blockSize).quality(quality).build();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), FlagNames.reword(e, FLAGS).getMessage(), e);
        }
        if (!Files.isDirectory(images)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--images is not a directory: " + images);
        }
        GridSize scale;
        try {
            scale = size == null ? null : GridSize.parse(size, "--size");
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        List<BufferedImage> samples = new ArrayList<>();
        try (Stream<Path> files = Files.list(images)) {
            for (Path file : files.sorted().toList()) {
                String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
                if (samples.size() < limit && (name.endsWith(".png") || name.endsWith(".jpg") || name.endsWith(".jpeg"))) {
                    BufferedImage image = ImageIO.read(file.toFile());
                    if (image != null) {
                        samples.add(scale == null ? image : scaled(image, scale.rows(), scale.cols()));
                    }
                }
            }
        }
        if (samples.isEmpty()) {
            throw new CommandLine.ParameterException(spec.commandLine(), "no PNG or JPEG images in " + images);
        }
        long start = System.nanoTime();
        MeasuredUtility measured;
        try {
            measured = MeasuredUtility.measure(encoder, samples, points);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), FlagNames.reword(e, FLAGS).getMessage(), e);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long blocks = 0;
        for (int i = 0; i < samples.size(); i++) {
            blocks += encoder.encode(i, samples.get(i)).size();
        }
        System.out.printf(Locale.ROOT, "Mean SSIM of block prefixes, %d images from %s%s, %s%n",
                samples.size(), images, size == null ? "" : " scaled to " + size, encoder);
        System.out.printf(Locale.ROOT, "mean blocks per image %.2f (%.0f bytes)%n%n",
                (double) blocks / samples.size(), (double) blocks * encoder.blockSize() / samples.size());
        System.out.println("| fraction of blocks | utility (mean SSIM) |");
        System.out.println("|---:|---:|");
        double[] f = measured.fractions();
        double[] u = measured.utilities();
        for (int i = 0; i < f.length; i++) {
            System.out.printf(Locale.ROOT, "| %.2f | %.3f |%n", f[i], u[i]);
        }
        System.out.printf(Locale.ROOT, "%nmeasured in %.1f s%n", seconds);
        return 0;
    }

    /** {@code image} scaled to {@code width × height} with bilinear interpolation. */
    static BufferedImage scaled(BufferedImage image, int width, int height) {
        BufferedImage out = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
        Graphics2D g = out.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_INTERPOLATION, RenderingHints.VALUE_INTERPOLATION_BILINEAR);
            g.drawImage(image, 0, 0, width, height, null);
        } finally {
            g.dispose();
        }
        return out;
    }
}
