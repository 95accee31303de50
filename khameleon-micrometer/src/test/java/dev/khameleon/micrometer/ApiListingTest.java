package dev.khameleon.micrometer;

import dev.khameleon.core.testkit.ApiListing;
import org.junit.jupiter.api.Test;

/** The public API of khameleon-micrometer is the committed api/khameleon-micrometer.api (docs/releasing.md). */
class ApiListingTest {
    @Test
    void publicApiIsTheCommittedListing() throws Exception {
        ApiListing.assertMatches("khameleon-micrometer");
    }
}
