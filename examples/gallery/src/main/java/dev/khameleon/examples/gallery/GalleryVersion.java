package dev.khameleon.examples.gallery;

import picocli.CommandLine;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The gallery's version for {@code --version}: the Maven project version, which the build writes into
 * {@code version.properties} next to this class (so it is the same from the jar and from the classes folder).
 */
final class GalleryVersion implements CommandLine.IVersionProvider {
    private static final String RESOURCE = "version.properties";

    /** The project version, e.g. {@code 0.1.0-SNAPSHOT}; fails if the build did not write it. */
    static String version() {
        try (InputStream in = GalleryVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path");
            }
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "");
            if (v.isBlank() || v.startsWith("${")) {
                throw new IllegalStateException(RESOURCE + " was not filled in by the build: version=" + v);
            }
            return v;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String[] getVersion() {
        return new String[] {"khameleon-gallery " + version()};
    }
}
