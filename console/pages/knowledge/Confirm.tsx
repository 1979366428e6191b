/** A destructive button that asks first, in place: the question, then confirm or keep. */
import { useEffect, useRef, useState } from 'preact/hooks';

interface ConfirmProps {
  /** The button's text. */
  label: string;
  /** The question shown once it is pressed. */
  question: string;
  confirmLabel: string;
  keepLabel: string;
  onConfirm(): void | Promise<void>;
}

export function Confirm(props: ConfirmProps) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const keep = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) keep.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <button type="button" class="danger" onClick={() => setAsking(true)}>
        {props.label}
      </button>
    );
  return (
    <div class="kn-confirm" role="group" aria-label={props.question}>
      <p>{props.question}</p>
      <button
        type="button"
        class="danger"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await props.onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {props.confirmLabel}
      </button>
      <button type="button" ref={keep} onClick={() => setAsking(false)}>
        {props.keepLabel}
      </button>
    </div>
  );
}
