package dev.khameleon.tiers;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The names one node uses in the shared tiers, all under the namespace: the value, lock and permit
 * keys in Redis, the object keys in the bucket, and the lock tokens and lease ids that tell this node's
 * holds apart. Thread-safe.
 */
final class KeySpace {
    private final String namespace;
    private final String nodeId;
    private final AtomicLong sequence = new AtomicLong();

    /** The names under {@code namespace} (null when no shared tier is set) for the node {@code nodeId}. */
    KeySpace(String namespace, String nodeId) {
        this.namespace = namespace;
        this.nodeId = nodeId;
    }

    /** The namespace, for messages. */
    String namespace() {
        return namespace;
    }

    /** The Redis key of the response stored under {@code contentKey}. */
    String value(long contentKey) {
        return namespace + ":r:" + contentKey;
    }

    /** The Redis key of the lock held by the node computing {@code contentKey}. */
    String lock(long contentKey) {
        return namespace + ":lock:" + contentKey;
    }

    /** The Redis key of the fleet's semaphore of origin permits. */
    String permits() {
        return namespace + ":origin-permits";
    }

    /** The object-store key of the response stored under {@code contentKey}. */
    String object(long contentKey) {
        return namespace + "/r/" + contentKey;
    }

    /** A lock token no other hold of this node's has used. */
    String nextLockToken() {
        return nodeId + ":" + sequence.incrementAndGet();
    }

    /** A lease id no other hold of this node's has used. */
    String nextLeaseId() {
        return nodeId + ":lease:" + sequence.incrementAndGet();
    }
}
