/**
 * Khameleon's model: {@link dev.khameleon.core.Distribution distributions} over requests,
 * {@link dev.khameleon.core.Block blocks} of progressive responses, planned
 * {@link dev.khameleon.core.ScheduleChunk schedule chunks} and the pointer's
 * {@link dev.khameleon.core.PointerEvent events}. All values here are immutable.
 */
package dev.khameleon.core;
