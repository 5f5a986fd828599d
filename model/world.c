/* model/world.c: the world's reports to the observers (model/world.h). */
#include "world.h"

void world_note_msg(pipe_world *w, pipe_event *e) {
    e->at_ns = w->run->now_ns;
    for (uint32_t i = 0; i < w->observers; i++) {
        if (w->msg_observers >> i & 1) w->observe[i](w->observe_ctx[i], e);
    }
}

void world_note_ev(pipe_world *w, pipe_event *e) {
    if (w->observers == 0) return;
    e->at_ns = w->run->now_ns;
    for (uint32_t i = 0; i < w->observers; i++) w->observe[i](w->observe_ctx[i], e);   /* in registration order */
}
