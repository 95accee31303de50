package dev.khameleon.examples.gallery;

import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A headless Chromium driven through Debian's chromedriver, with the flags CI needs and a fresh
 * profile; skips the calling test, naming the path, when the browser is not installed.
 */
final class BrowserSession implements AutoCloseable {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    /**
     * Selenium warns that it has no DevTools bindings for Debian's (newer) Chromium; the tests use
     * WebDriver only. Held here because java.util.logging keeps loggers weakly.
     */
    private static final Logger DEVTOOLS_LOG = Logger.getLogger("org.openqa.selenium.devtools");

    static {
        DEVTOOLS_LOG.setLevel(Level.SEVERE);
    }

    private final ChromeDriverService service;
    private final ChromeDriver driver;

    private BrowserSession(Path profile) {
        service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort()
                .build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--disable-quic", "--user-data-dir=" + profile.toAbsolutePath(),
                "--window-size=1600,1000");
        ChromeDriver started;
        try {
            started = new ChromeDriver(service, options);
        } catch (RuntimeException e) {
            service.stop();
            throw e;
        }
        driver = started;
    }

    /** Starts a browser with a fresh profile in {@code profile}, or skips the test if absent. */
    static BrowserSession start(Path profile) {
        Assumptions.assumeTrue(Files.isExecutable(CHROMIUM),
                "Chromium absent: " + CHROMIUM + " (CI installs it: apt-get install chromium chromium-driver)");
        Assumptions.assumeTrue(Files.isExecutable(CHROMEDRIVER),
                "chromedriver absent: " + CHROMEDRIVER + " (CI installs it: apt-get install chromium-driver)");
        return new BrowserSession(profile);
    }

    ChromeDriver driver() {
        return driver;
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            service.stop();
        }
    }
}
