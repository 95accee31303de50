package dev.khameleon.core.protocol;

/** Field checks shared by the message records and the codecs; failures are {@code invalid_message}. */
final class Fields {
    private Fields() {
    }

    static ProtocolException invalid(String message) {
        return new ProtocolException(ErrorCode.INVALID_MESSAGE, message);
    }

    static void checkMin(String field, long value, long min) {
        if (value < min) {
            throw invalid(field + " must be >= " + min + ", was " + value);
        }
    }

    static void checkString(String field, String value, int minLength, int maxLength) {
        if (value == null) {
            throw invalid(field + " is required");
        }
        if (value.length() < minLength || value.length() > maxLength) {
            throw invalid(field + " must have " + minLength + " to " + maxLength + " characters, had "
                    + value.length());
        }
    }
}
