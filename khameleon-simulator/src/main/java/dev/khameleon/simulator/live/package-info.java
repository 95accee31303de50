/**
 * The live replay ({@code khameleon-simulator live}): the real server and client over a user-space
 * link, judged by the simulator's metrics. {@link dev.khameleon.simulator.live.LiveCommand} is the
 * command; {@code LiveRun} wires one run (server, {@code LinkShaper},
 * client, replay); the shaper's policy is in {@code Bottleneck}, {@code DelayLine} and
 * {@code DeliverySchedule}, Netty-free and tested on their own clock; the test kit's {@code BlockFrameTap} and
 * {@code LiveSystem} connect the client to the simulator's {@code Recorder}.
 */
package dev.khameleon.simulator.live;
