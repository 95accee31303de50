package dev.khameleon.core;

import dev.khameleon.core.testkit.ApiListing;
import org.junit.jupiter.api.Test;

/** The public API of khameleon-core is the committed api/khameleon-core.api (docs/releasing.md). */
class ApiListingTest {
    @Test
    void publicApiIsTheCommittedListing() throws Exception {
        ApiListing.assertMatches("khameleon-core");
    }
}
