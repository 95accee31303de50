package dev.khameleon.server;

import dev.khameleon.core.protocol.ControlMessage;
import dev.khameleon.core.protocol.ErrorCode;
import io.netty.channel.ChannelHandlerContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a welcomed connection, put in place by {@link HelloHandler}: feeds the
 * client's states, scopes, rate reports and request events to the session's
 * {@link PushController}, whose decisions the session's {@link ChannelPort} carries out; a second
 * hello closes the session, a late {@code resumePart} (of a resume refused before its parts came)
 * is ignored, a {@code bye} closes it normally. Runs on the channel's event loop.
 */
final class PushHandler extends SessionHandler {
    private static final Logger log = LoggerFactory.getLogger(PushHandler.class);

    PushHandler(Session session) {
        this.session = session;
    }

    @Override
    void onMessage(ChannelHandlerContext ctx, ControlMessage m) {
        if (m instanceof ControlMessage.Hello) {
            session.closeWithError(ErrorCode.DUPLICATE_HELLO, "hello was already received");
        } else if (m instanceof ControlMessage.ResumePart) {
            // After the welcome (a resume refused before its parts came) a part is ignored, so that
            // a refusal never turns into an error.
            return;
        } else if (session.controller().onMessage(m)) {
            return;
        } else if (m instanceof ControlMessage.Bye) {
            log.debug("session {}: client said bye", session.id());
            session.closeNormally();
        }
    }
}
