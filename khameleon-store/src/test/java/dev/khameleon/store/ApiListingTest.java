package dev.khameleon.store;

import dev.khameleon.core.testkit.ApiListing;
import org.junit.jupiter.api.Test;

/** The public API of khameleon-store is the committed api/khameleon-store.api (docs/releasing.md). */
class ApiListingTest {
    @Test
    void publicApiIsTheCommittedListing() throws Exception {
        ApiListing.assertMatches("khameleon-store");
    }
}
