package dev.khameleon.simulator;

/**
 * A grid's size as the command line gives it, {@code ROWSxCOLS} (e.g. {@code 100x100}).
 *
 * @param rows rows, at least 1
 * @param cols columns, at least 1
 */
public record GridSize(int rows, int cols) {
    /** The most cells a grid given on the command line may have. */
    public static final long MAX_CELLS = 100_000_000L;

    /** Checks the size. */
    public GridSize {
        if (rows < 1 || cols < 1 || (long) rows * cols > MAX_CELLS) {
            throw new IllegalArgumentException("a grid needs 1 to " + MAX_CELLS + " cells of at least 1 row and 1 column, was "
                    + rows + "x" + cols);
        }
    }

    /**
     * Parses {@code ROWSxCOLS}.
     *
     * @param value the text given
     *
     * @param option the option's name, for the message
     * @throws IllegalArgumentException naming {@code option} and the value when it is not such a size
     */
    public static GridSize parse(String value, String option) {
        String[] parts = value == null ? new String[0] : value.trim().split("[xX]", -1);
        if (parts.length == 2) {
            try {
                return new GridSize(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
            } catch (NumberFormatException e) {
                // fall through to the message below
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(option + " " + value + ": " + e.getMessage(), e);
            }
        }
        throw new IllegalArgumentException(option + " '" + value + "' is not ROWSxCOLS such as 100x100");
    }
}
