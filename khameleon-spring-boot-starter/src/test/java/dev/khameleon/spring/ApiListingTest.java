package dev.khameleon.spring;

import dev.khameleon.core.testkit.ApiListing;
import org.junit.jupiter.api.Test;

/** The public API of khameleon-spring-boot-starter is the committed api/khameleon-spring-boot-starter.api (docs/releasing.md). */
class ApiListingTest {
    @Test
    void publicApiIsTheCommittedListing() throws Exception {
        ApiListing.assertMatches("khameleon-spring-boot-starter");
    }
}
