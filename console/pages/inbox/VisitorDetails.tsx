/** Who the visitor is: what they told, whether their e-mail is verified, and what the site passed about their page. */
import { ExternalLink, safeUrl } from '../../../widget/ui/markdown.js';
import { fill, formatDate } from '../../i18n/index.js';
import { madeUpName, pageOf, visitorName, type Conversation } from './conversation.js';
import { useInboxStrings } from './strings.js';

export function VisitorDetails({ c }: { c: Conversation }) {
  const t = useInboxStrings();
  const u = c.chatUser;
  const context = u?.context ?? {};
  // What the widget saw the visitor on, else what the site passed.
  const page = (u?.page && /^https?:\/\//i.test(u.page) ? u.page : null) ?? pageOf(context);
  const href = page ? safeUrl(page) : null;
  const extra = Object.entries(context).filter(([, v]) => v !== page);
  const named = !!(u?.name?.trim() || u?.email);
  return (
    <aside class="inbox-details card" aria-labelledby="inbox-details-title">
      <h2 id="inbox-details-title">{t.details}</h2>
      {!named && <p class="muted small">{fill(t.noName, { name: madeUpName(c.chatUserId ?? c.threadId) })}</p>}
      <dl>
        <div>
          <dt>{t.name}</dt>
          <dd>
            <bdi>{u?.name?.trim() || (named ? t.nothing : visitorName(c))}</bdi>
          </dd>
        </div>
        <div>
          <dt>{t.email}</dt>
          <dd>
            {u?.email ? (
              <>
                <bdi>{u.email}</bdi>{' '}
                <span class={`inbox-verified ${u.verified ? 'yes' : 'no'}`}>
                  {u.verified ? t.verified : t.notVerified}
                </span>
              </>
            ) : (
              t.nothing
            )}
          </dd>
        </div>
        {u?.phone && (
          <div>
            <dt>{t.phone}</dt>
            <dd>
              <bdi>{u.phone}</bdi>
            </dd>
          </div>
        )}
        <div>
          <dt>{t.page}</dt>
          <dd class="inbox-page">
            {href ? (
              <ExternalLink href={href}>
                <bdi>{page}</bdi>
              </ExternalLink>
            ) : (
              t.nothing
            )}
          </dd>
        </div>
        {extra.length > 0 && (
          <div>
            <dt>{t.context}</dt>
            <dd>
              <dl class="inbox-context">
                {extra.map(([k, v]) => (
                  <div key={k}>
                    <dt>
                      <bdi>{k}</bdi>
                    </dt>
                    <dd>
                      <bdi>{v}</bdi>
                    </dd>
                  </div>
                ))}
              </dl>
            </dd>
          </div>
        )}
        <div>
          <dt>{t.firstSeen}</dt>
          <dd>{formatDate(u?.createdAt ?? c.startedAt, { dateStyle: 'medium', timeStyle: 'short' })}</dd>
        </div>
      </dl>
    </aside>
  );
}
