package dev.khameleon.examples.gallery;

import dev.khameleon.testing.SharedData;
import org.junit.jupiter.api.Test;

import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.IntFunction;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TileImagesTest {

    private static int[] pixels(BufferedImage image) {
        return image.getRGB(0, 0, image.getWidth(), image.getHeight(), null, 0, image.getWidth());
    }

    @Test
    void synthetic_isDeterministicPerTileAndDiffersAcrossTiles() {
        IntFunction<BufferedImage> pictures = TileImages.synthetic(120, 90, 42);
        assertArrayEquals(pixels(pictures.apply(3)), pixels(pictures.apply(3)));
        assertFalse(java.util.Arrays.equals(pixels(pictures.apply(3)), pixels(pictures.apply(4))));
        assertEquals(120, pictures.apply(0).getWidth());
    }

    @Test
    void thumbnail_averagesTheBoxUnderEachPixel() {
        BufferedImage image = new BufferedImage(4, 2, BufferedImage.TYPE_INT_RGB);
        image.setRGB(0, 0, 0x000000);
        image.setRGB(1, 0, 0x0000FF);
        image.setRGB(0, 1, 0x0000FF);
        image.setRGB(1, 1, 0x000000);
        for (int x = 2; x < 4; x++) {
            image.setRGB(x, 0, 0xFF0000);
            image.setRGB(x, 1, 0xFF0000);
        }
        BufferedImage thumb = TileImages.thumbnail(image, 2, 1);
        assertEquals(0x000080, thumb.getRGB(0, 0) & 0xFFFFFF); // (0 + 255 + 255 + 0) / 4, rounded
        assertEquals(0xFF0000, thumb.getRGB(1, 0) & 0xFFFFFF);
    }

    @Test
    void rgb_readsThePicturesBytesAsGetRgbDoes() {
        BufferedImage picture = TileImages.synthetic(120, 90, 42).apply(5);
        assertEquals(BufferedImage.TYPE_3BYTE_BGR, picture.getType());
        int[] expected = Arrays.stream(pixels(picture)).map(p -> p & 0xFFFFFF).toArray();
        assertArrayEquals(expected, TileImages.rgb(picture));
        BufferedImage copy = new BufferedImage(120, 90, BufferedImage.TYPE_INT_RGB);
        copy.getGraphics().drawImage(picture, 0, 0, null);
        assertArrayEquals(pixels(TileImages.thumbnail(copy, 24, 18)), pixels(TileImages.thumbnail(picture, 24, 18)),
                "the same thumbnail from the bytes as through getRGB");
        BufferedImage part = picture.getSubimage(10, 10, 50, 40); // not the whole raster: through getRGB
        int[] partExpected = Arrays.stream(pixels(part)).map(p -> p & 0xFFFFFF).toArray();
        assertArrayEquals(partExpected, Arrays.stream(TileImages.rgb(part)).map(p -> p & 0xFFFFFF).toArray());
    }

    @Test
    void photoCrops_cutTilesOfTheRequestedSizeFromKodak() {
        Path kodak = SharedData.requireDirectory("images/kodak", "Kodak images");
        IntFunction<BufferedImage> crops = TileImages.photoCrops(kodak, 160, 120, 7);
        BufferedImage a = crops.apply(30);
        assertEquals(160, a.getWidth());
        assertEquals(120, a.getHeight());
        assertArrayEquals(pixels(a), pixels(crops.apply(30)));
    }

    @Test
    void photoCrops_rejectsAFolderWithoutImages(@TempDir Path empty) throws IOException {
        Files.writeString(empty.resolve("notes.txt"), "not a picture");
        TileImages.BadImagesException e = assertThrows(TileImages.BadImagesException.class,
                () -> TileImages.photoCrops(empty, 10, 10, 1));
        assertEquals("no PNG or JPEG images (*.png, *.jpg, *.jpeg) in " + empty, e.getMessage());
    }

    @Test
    void photoCrops_namesAFileThatIsNotAnImage(@TempDir Path dir) throws IOException {
        writePng(dir.resolve("a.png"), 32, 24);
        Files.writeString(dir.resolve("b.png"), "<html>not a picture</html>");
        TileImages.BadImagesException e = assertThrows(TileImages.BadImagesException.class,
                () -> TileImages.photoCrops(dir, 10, 10, 1));
        assertEquals(dir.resolve("b.png") + " is not a PNG or JPEG image", e.getMessage());
    }

    @Test
    void photoCrops_namesATruncatedPngOrJpeg(@TempDir Path dir) throws IOException {
        for (String format : new String[] {"png", "jpg"}) {
            Path whole = dir.resolve("whole." + format);
            writeImage(noise(200, 150), format, whole);
            byte[] bytes = Files.readAllBytes(whole);
            Files.delete(whole);
            Path cut = Files.write(dir.resolve("cut." + format), Arrays.copyOf(bytes, bytes.length / 2));
            TileImages.BadImagesException e = assertThrows(TileImages.BadImagesException.class,
                    () -> TileImages.photoCrops(dir, 10, 10, 1), format);
            assertTrue(e.getMessage().startsWith("cannot read " + cut + ": cut short or corrupt"), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
            Files.delete(cut);
        }
    }

    @Test
    void photoCrops_refusesAHugeImageFromItsHeaderWithoutDecodingIt(@TempDir Path dir) throws IOException {
        // Only a PNG signature and header chunk claiming 20000 x 20000: decoding it would need 1.2 GB
        // and fail for want of data; the size is refused first.
        Path huge = Files.write(dir.resolve("huge.png"), pngHeaderOnly(20_000, 20_000));
        TileImages.BadImagesException e = assertThrows(TileImages.BadImagesException.class,
                () -> TileImages.photoCrops(dir, 10, 10, 1));
        assertEquals(huge + " is 20000 x 20000 pixels; at most 8192 a side are accepted", e.getMessage());

        Files.write(huge, pngHeaderOnly(8192, 8192));
        Files.write(dir.resolve("huge2.png"), pngHeaderOnly(8192, 8192));
        TileImages.BadImagesException total = assertThrows(TileImages.BadImagesException.class,
                () -> TileImages.photoCrops(dir, 10, 10, 1));
        assertTrue(total.getMessage().contains("more than 100 megapixels together (reached at huge2.png)"),
                total.getMessage());
    }

    private static BufferedImage noise(int width, int height) {
        BufferedImage image = new BufferedImage(width, height, BufferedImage.TYPE_3BYTE_BGR);
        SplittableRandom random = new SplittableRandom(3);
        for (int y = 0; y < height; y++) {
            for (int x = 0; x < width; x++) {
                image.setRGB(x, y, random.nextInt(0x1000000));
            }
        }
        return image;
    }

    private static void writePng(Path file, int width, int height) throws IOException {
        writeImage(noise(width, height), "png", file);
    }

    private static void writeImage(BufferedImage image, String format, Path file) throws IOException {
        assertTrue(ImageIO.write(image, format.equals("jpg") ? "jpeg" : format, file.toFile()), format);
    }

    /** The PNG signature and an IHDR chunk (8-bit RGB) with a correct CRC, and nothing else. */
    private static byte[] pngHeaderOnly(int width, int height) {
        ByteBuffer ihdr = ByteBuffer.allocate(17);
        ihdr.put("IHDR".getBytes(StandardCharsets.US_ASCII)).putInt(width).putInt(height)
                .put((byte) 8).put((byte) 2).put((byte) 0).put((byte) 0).put((byte) 0);
        CRC32 crc = new CRC32();
        crc.update(ihdr.array());
        return ByteBuffer.allocate(8 + 4 + 17 + 4)
                .put(new byte[] {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'})
                .putInt(13).put(ihdr.array()).putInt((int) crc.getValue()).array();
    }
}
