/** Shared CSS for the page's shadow roots: host design tokens only (they inherit from <body> in light and dark). */
import { css } from 'lit'

/** Base rules every component adopts. */
export const baseStyles = css`
  :host {
    color: var(--dsw-alias-label-primary);
    font-family: var(--dsw-font-family, system-ui, sans-serif);
    font-size: 14px;
    line-height: 20px;
    box-sizing: border-box;
  }
  *, *::before, *::after { box-sizing: inherit; }
  button {
    font: inherit;
    color: inherit;
    background: transparent;
    border: 1px solid var(--dsw-alias-border-l2);
    border-radius: 8px;
    padding: 4px 10px;
    cursor: pointer;
  }
  button:hover:not(:disabled) { background: var(--dsw-alias-interactive-bg-hover); }
  button:active:not(:disabled) { background: var(--dsw-alias-interactive-bg-active); }
  button:disabled { opacity: 0.5; cursor: default; }
  button.quiet { border-color: transparent; }
  button.primary { background: var(--dsw-alias-brand-primary); color: var(--dsw-alias-label-primary-inverted); border-color: transparent; }
  /* Under the mouse a primary button keeps its fill and label (the plain hover fill would blank it); a ring marks it. */
  button.primary:hover:not(:disabled), button.primary:active:not(:disabled) {
    background: var(--dsw-alias-brand-primary);
    box-shadow: 0 0 0 2px var(--dsw-alias-bg-base), 0 0 0 4px var(--dsw-alias-brand-primary);
  }
  button.danger { color: var(--dsw-alias-state-error-primary, var(--dsw-alias-label-primary)); }
  :focus-visible { outline: 2px solid var(--dsw-alias-brand-primary); outline-offset: 2px; }
  input, select, textarea {
    font: inherit;
    color: inherit;
    background: var(--dsw-alias-bg-layer-1);
    border: 1px solid var(--dsw-alias-border-l2);
    border-radius: 8px;
    padding: 4px 8px;
  }
  .muted { color: var(--dsw-alias-label-secondary); }
  .caption { color: var(--dsw-alias-label-tertiary); font-size: 12px; line-height: 16px; }
  .pill {
    display: inline-flex;
    align-items: center;
    gap: 2px;
    padding: 0 8px;
    border-radius: 999px;
    font-size: 12px;
    line-height: 20px;
    white-space: nowrap;
    border: 1px solid var(--dsw-alias-border-l2);
    color: var(--dsw-alias-label-secondary);
  }
  .pill.active { color: var(--dsw-alias-state-success-primary, var(--dsw-alias-label-primary)); }
  .pill.conflict { color: var(--dsw-alias-state-warn-primary, var(--dsw-alias-label-primary)); border-color: currentColor; }
  .pill.scheduled { color: var(--dsw-alias-state-business-primary, var(--dsw-alias-label-secondary)); }
  .empty { padding: 32px; text-align: center; color: var(--dsw-alias-label-secondary); }
  .skeleton {
    border-radius: 6px;
    background: linear-gradient(90deg, var(--dsw-alias-bg-layer-2) 0%, var(--dsw-alias-bg-layer-3) 50%, var(--dsw-alias-bg-layer-2) 100%);
    background-size: 200% 100%;
    animation: shimmer 1.2s linear infinite;
  }
  @keyframes shimmer { from { background-position: 200% 0; } to { background-position: -200% 0; } }
  @media (prefers-reduced-motion: reduce) { .skeleton { animation: none; } }
`
