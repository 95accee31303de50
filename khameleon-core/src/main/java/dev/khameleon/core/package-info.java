/**
 * Khameleon's model: {@link dev.khameleon.core.Distribution distributions} over requests,
 * {@link dev.khameleon.core.Block blocks} of progressive responses, planned
 * {@link dev.khameleon.core.ScheduleChunk schedule chunks} and the built-in
 * {@link dev.khameleon.core.GridLayout grid layout}. All values here are immutable.
 */
package dev.khameleon.core;
