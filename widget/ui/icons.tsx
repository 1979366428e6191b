/** The few line icons the window uses (inline SVG: nothing fetched). */
const svg = (d: string) => () => (
  <svg
    viewBox="0 0 24 24"
    width="20"
    height="20"
    aria-hidden="true"
    focusable="false"
    fill="none"
    stroke="currentColor"
    stroke-width="2"
    stroke-linecap="round"
    stroke-linejoin="round"
  >
    <path d={d} />
  </svg>
);

export const CloseIcon = svg('M6 6l12 12M18 6L6 18');
export const SendIcon = svg('M4 12l16-8-6 16-2-7-8-1z');
export const ExpandIcon = svg('M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5');
export const CollapseIcon = svg('M9 4v5H4M15 4v5h5M9 20v-5H4M15 20v-5h5');
export const ThumbUpIcon = svg('M7 11v9H4v-9h3zm0 0l4-7a2 2 0 012 2v4h5a2 2 0 012 2l-2 7a2 2 0 01-2 1H7');
export const ThumbDownIcon = svg('M7 13V4H4v9h3zm0 0l4 7a2 2 0 002-2v-4h5a2 2 0 002-2l-2-7a2 2 0 00-2-1H7');
export const HomeIcon = svg('M3 11l9-7 9 7v9a1 1 0 01-1 1h-5v-6H9v6H4a1 1 0 01-1-1z');
export const PersonIcon = svg('M12 12a4 4 0 100-8 4 4 0 000 8zm-7 9a7 7 0 0114 0');
export const BackIcon = svg('M15 18l-6-6 6-6');
export const HumanIcon = svg('M8 10a3 3 0 100-6 3 3 0 000 6zm-5 9a5 5 0 0110 0M17 11l2 2 4-4');
export const LinkIcon = svg('M10 14a4 4 0 006 0l3-3a4 4 0 00-6-6l-1 1M14 10a4 4 0 00-6 0l-3 3a4 4 0 006 6l1-1');
