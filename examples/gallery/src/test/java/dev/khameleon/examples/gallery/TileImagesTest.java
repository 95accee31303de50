package dev.khameleon.examples.gallery;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
    void photoCrops_cutTilesOfTheRequestedSizeFromKodak() {
        Path kodak = Path.of(System.getProperty("khameleon.shared.data", "../shared/data"), "images", "kodak");
        Assumptions.assumeTrue(Files.isDirectory(kodak), "Kodak images absent: " + kodak.toAbsolutePath());
        IntFunction<BufferedImage> crops = TileImages.photoCrops(kodak, 160, 120, 7);
        BufferedImage a = crops.apply(30);
        assertEquals(160, a.getWidth());
        assertEquals(120, a.getHeight());
        assertArrayEquals(pixels(a), pixels(crops.apply(30)));
    }

    @Test
    void photoCrops_rejectsAFolderWithoutImages(@org.junit.jupiter.api.io.TempDir Path empty) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TileImages.photoCrops(empty, 10, 10, 1));
        assertEquals("no PNG or JPEG images in " + empty, e.getMessage());
    }
}
