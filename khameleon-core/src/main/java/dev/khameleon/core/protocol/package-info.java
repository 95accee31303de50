/**
 * The wire protocol between a Khameleon server and its clients, as specified in
 * {@code docs/protocol.md}: JSON control messages ({@link dev.khameleon.core.protocol.ControlMessage},
 * encoded and decoded by {@link dev.khameleon.core.protocol.ControlCodec}) and binary block frames
 * ({@link dev.khameleon.core.protocol.BlockFrame}). Decoding validates every field and fails with a
 * {@link dev.khameleon.core.protocol.ProtocolException} carrying the
 * {@link dev.khameleon.core.protocol.ErrorCode} to send back. No networking here: servers and
 * clients bring their own transport.
 */
package dev.khameleon.core.protocol;
