"""A replayed agent episode shows the thoughts it kept in the Agents dock, in the plot drawn live.

The replay session (:class:`app.recording.ReplaySession`, on the worker thread) says which decision is on
show; this follower reads it on a timer and redraws the Agents dock's "What the agent thinks" plot when
the decision changes, so the bars move at the decisions' own pace while the game runs at 60 Hz.
"""
from __future__ import annotations

from PySide6.QtCore import QObject, QTimer


class ReplayThoughts(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.setObjectName("replay-thoughts")
        self.window = window
        self._shown = (None, None)   # (session, decision) last drawn
        self._target = None          # the replay to follow
        self._live = False           # it has reached the view
        self.timer = QTimer(self)
        self.timer.setInterval(15)   # every displayed frame: no decision is skipped at 60 Hz
        self.timer.timeout.connect(self._poll)

    def follow(self, sess) -> None:
        """Follow replay ``sess`` once the worker has put it in the view."""
        self._shown = (None, None)
        self._target, self._live = sess, False
        agents = self.window.agent_ui.agents
        agents.show()
        agents.raise_()
        self.timer.start()
        # the plot sits below the agent's settings: scroll the dock to it once it is laid out
        QTimer.singleShot(0, self, lambda: self._reveal(agents))

    @staticmethod
    def _reveal(agents) -> None:
        box = agents.thought.parentWidget() or agents.thought
        agents.scroll.ensureWidgetVisible(box, 0, 0)

    def _poll(self) -> None:
        sess = self.window.session
        if sess is not self._target:
            if self._live:  # another game or replay took the view; the next replay starts it again
                self.timer.stop()
                self._target = None
            return
        self._live = True
        panel = self.window.agent_ui.agents
        if panel.driver is not None:
            return  # a live agent owns the plot
        i = sess.thought_index
        if self._shown[0] is sess and self._shown[1] == i:
            return
        self._shown = (sess, i)
        t = sess.current_thought()
        rec = sess.rec
        where = f"Replay of episode {getattr(rec, 'id', '?')}: {rec.player} on {rec.game}"
        if t is None:
            panel.status.setText(f"{where} · no decision yet")
            return
        panel.thought.show_thought(t)
        panel.status.setText(f"{where} · decision {i + 1}/{len(sess.thoughts)} · score {sess.score}")


def follow_replay_thoughts(window, sess) -> ReplayThoughts:
    """Show the thoughts of replay ``sess`` in ``window``'s Agents dock (one follower per window)."""
    f = window.findChild(ReplayThoughts, "replay-thoughts")
    if f is None:
        f = ReplayThoughts(window)
    f.follow(sess)
    return f
