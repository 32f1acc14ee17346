// Screen-reader announcements: one polite live region (#announcer, made by the shell,
// visually hidden) that says what changed — the analysis's phase and progress in steps,
// its end. The progress panel itself is not a live region: its clock ticks four times a
// second, which would drown everything else.
import { byId, setText } from './dom';

export function announce(text: string): void {
  setText(byId('announcer'), text);
}
