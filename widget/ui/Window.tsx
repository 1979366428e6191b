/** The chat window: header, connection banner, the current view, composer, watermark. */
import { useEffect, useRef } from 'preact/hooks';
import type { ChatModel } from '../state/chat.js';
import { isRtl, launcherText } from '../i18n/launcher.js';
import { Account } from './Account.js';
import { Composer } from './Composer.js';
import { EscalationDialog } from './Escalation.js';
import { Home } from './Home.js';
import { BackIcon, CloseIcon, CollapseIcon, ExpandIcon, HomeIcon, HumanIcon, PersonIcon } from './icons.js';
import { LeadForm } from './LeadForm.js';
import { ExternalLink, safeUrl } from './markdown.js';
import { Messages } from './Messages.js';

export interface WindowProps {
  model: ChatModel;
  /** Floating (bubble mode): closable, focus kept inside. */
  floating: boolean;
  /** Move focus into the window as it opens (a floating window, outside a preview). */
  takeFocus: boolean;
  onClose(): void;
  openLink(url: string): void;
}

const FOCUSABLE =
  'a[href],button:not([disabled]),textarea:not([disabled]),input:not([disabled]),select:not([disabled]),[tabindex]:not([tabindex="-1"])';

export function Window({ model, floating, takeFocus, onClose, openLink }: WindowProps) {
  const s = model.i18n.strings.value;
  const { config } = model;
  const ref = useRef<HTMLDivElement>(null);
  const view = model.ui.view.value;
  const condition = model.conversation.condition.value;
  const status = model.connection.status.value;
  const canEscalate =
    config.chat.mode === 'AI_WITH_HUMAN_ESCALATION' &&
    !!model.conversation.conversationId.value &&
    condition?.mode !== 'AGENT' &&
    !condition?.escalated &&
    condition?.status !== 'RESOLVED';
  const blockedByLead =
    config.userData.collectUserDetails === 'BEFORE_CONVERSATION' &&
    (model.lead.state.value === 'asking' || model.lead.state.value === 'busy');

  useEffect(() => {
    if (!takeFocus) return;
    const first = ref.current?.querySelector<HTMLElement>('textarea, button.prompt, button');
    first?.focus();
  }, []);

  const onKeyDown = (e: KeyboardEvent) => {
    const dialog = model.ui.escalationOpen.value;
    if (!floating && !dialog) return;
    if (e.key === 'Escape' && !dialog) {
      e.preventDefault();
      onClose();
      return;
    }
    if (e.key !== 'Tab' || !ref.current) return;
    // The modal dialog holds the keyboard in every mode; the floating window, otherwise.
    const scope = (dialog && ref.current.querySelector('.dialog')) || ref.current;
    const nodes = [...scope.querySelectorAll<HTMLElement>(FOCUSABLE)].filter(
      (n) => n.offsetParent !== null || n === document.activeElement,
    );
    if (!nodes.length) return;
    const active = (ref.current.getRootNode() as ShadowRoot).activeElement;
    const first = nodes[0];
    const last = nodes[nodes.length - 1];
    // Focus outside the scope (the dialog has just opened, or a click landed behind it) comes in.
    if (!active || !scope.contains(active)) {
      e.preventDefault();
      (e.shiftKey ? last : first).focus();
    } else if (e.shiftKey && active === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && active === last) {
      e.preventDefault();
      first.focus();
    }
  };

  // Who answers, under the title: while a member has the conversation open, in the chat view.
  const agent =
    view === 'chat' && condition?.mode === 'AGENT' && condition.status !== 'RESOLVED' ? condition.agent : null;
  const icon = safeUrl(config.icons.icon ?? '');
  const cta = config.appearance.ctaText && safeUrl(config.appearance.ctaLink ?? '');
  const watermarkLink = safeUrl(config.watermark.link ?? '');
  const watermarkIcon = safeUrl(config.watermark.iconUrl ?? '');
  const watermarkText = config.watermark.text ?? s.ui.poweredBy;
  const watermark = !config.watermark.hide && !!(watermarkText || watermarkIcon);

  return (
    <div
      ref={ref}
      class={`window${model.ui.expanded.value ? ' expanded' : ''}${floating ? ' floating' : ''}`}
      role={floating ? 'dialog' : 'region'}
      aria-modal={floating ? 'false' : undefined}
      aria-labelledby="pw-title"
      dir={config.appearance.rtl || isRtl(model.i18n.locale.value) ? 'rtl' : 'ltr'}
      lang={model.i18n.locale.value}
      onKeyDown={onKeyDown}
    >
      <header class="header">
        {view !== 'chat' ? (
          <button type="button" class="icon-btn" aria-label={s.ui.back} onClick={() => model.ui.show('chat')}>
            <BackIcon />
          </button>
        ) : (
          icon && <img class="header-icon" src={icon} alt="" />
        )}
        <div class="header-text">
          <h1 id="pw-title">{config.name}</h1>
          {agent && <span class="header-sub">{agent.name ?? s.chatMessage.agentName}</span>}
        </div>
        {view === 'chat' && canEscalate && (
          <button
            type="button"
            class="icon-btn"
            aria-label={s.ui.talkToHuman}
            title={s.ui.talkToHuman}
            onClick={() => model.ui.askEscalation()}
          >
            <HumanIcon />
          </button>
        )}
        <button
          type="button"
          class="icon-btn"
          aria-label={s.chatMessages.messages}
          title={s.chatMessages.messages}
          onClick={() => model.showHome()}
        >
          <HomeIcon />
        </button>
        <button
          type="button"
          class="icon-btn"
          aria-label={s.chatAccount.account}
          title={s.chatAccount.account}
          onClick={() => model.ui.show('account')}
        >
          <PersonIcon />
        </button>
        {floating && (
          <button
            type="button"
            class="icon-btn hide-phone"
            aria-label={model.ui.expanded.value ? s.ui.collapse : s.ui.expand}
            onClick={() => model.ui.toggleExpanded()}
          >
            {model.ui.expanded.value ? <CollapseIcon /> : <ExpandIcon />}
          </button>
        )}
        {floating && (
          <button
            type="button"
            class="icon-btn"
            aria-label={launcherText(model.i18n.locale.value).closeChat}
            onClick={onClose}
          >
            <CloseIcon />
          </button>
        )}
      </header>
      {(status === 'offline' || (status === 'connecting' && model.conversation.pending.value.length > 0)) && (
        <div class="banner" role="status">
          {status === 'offline' ? s.ui.offline : s.ui.connecting}
        </div>
      )}
      {model.ui.error.value && (
        <div class="banner banner-error" role="alert">
          {model.ui.error.value}
        </div>
      )}
      <div class="body">
        {view === 'chat' &&
          (blockedByLead ? <LeadForm model={model} /> : <Messages model={model} openLink={openLink} />)}
        {view === 'home' && <Home model={model} />}
        {view === 'account' && <Account model={model} />}
      </div>
      {view === 'chat' && !blockedByLead && <Composer model={model} />}
      {(cta || watermark) && (
        <footer class="footer">
          {cta && (
            <ExternalLink href={cta}>
              <span class="cta">{config.appearance.ctaText}</span>
            </ExternalLink>
          )}
          {watermark && (
            <span class="watermark">
              {watermarkIcon && <img src={watermarkIcon} alt="" />}
              {watermarkLink ? <ExternalLink href={watermarkLink}>{watermarkText}</ExternalLink> : watermarkText}
            </span>
          )}
        </footer>
      )}
      {model.ui.escalationOpen.value && <EscalationDialog model={model} />}
    </div>
  );
}
