/**
 * The team stream (/api/v2/stream), authenticated by the session cookie. It reconnects on its
 * own (backing off to 15 s) and says when it is back, so the page reads again what changed while
 * it was away; a refused session (4001) is not retried (the shell asks to sign in again).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { TeamFrame } from '../../../shared/protocol.js';

export type Live = 'connecting' | 'live' | 'reconnecting';

export interface TeamStream {
  live: Live;
  /** Sends a client frame when the stream is open (typing is best effort). */
  send(frame: object): void;
}

export function useTeamStream(onFrame: (frame: TeamFrame) => void, onBack: () => void): TeamStream {
  const [live, setLive] = useState<Live>('connecting');
  const socket = useRef<WebSocket | null>(null);
  const handlers = useRef({ onFrame, onBack });
  handlers.current = { onFrame, onBack };

  useEffect(() => {
    let retry: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let stopped = false;
    const connect = () => {
      const ws = new WebSocket(`${location.origin.replace(/^http/, 'ws')}/api/v2/stream`, ['parley.v1']);
      socket.current = ws;
      ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', v: 1 }));
      ws.onclose = (e) => {
        if (stopped || e.code === 4001) return;
        setLive('reconnecting');
        retry = setTimeout(connect, Math.min(15_000, 500 * 2 ** failures++));
      };
      ws.onmessage = (e) => {
        const frame = JSON.parse(String(e.data)) as TeamFrame;
        if (frame.type === 'team.ready') {
          setLive('live');
          if (failures) handlers.current.onBack();
          failures = 0;
          return;
        }
        handlers.current.onFrame(frame);
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      socket.current?.close();
    };
  }, []);

  return {
    live,
    send(frame) {
      if (socket.current?.readyState === WebSocket.OPEN) socket.current.send(JSON.stringify(frame));
    },
  };
}
