package dev.khameleon.tiers;

import dev.khameleon.core.testkit.ApiListing;
import org.junit.jupiter.api.Test;

/** The public API of khameleon-tiers is the committed api/khameleon-tiers.api (docs/releasing.md). */
class ApiListingTest {
    @Test
    void publicApiIsTheCommittedListing() throws Exception {
        ApiListing.assertMatches("khameleon-tiers");
    }
}
