import type { ComponentChildren } from 'preact';
import { isPlainClick, navigate } from '../router.ts';

interface LinkProps {
  href: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page' | undefined;
}

/** An anchor the router follows without a page load; a modified click still opens a tab. */
export function Link({ href, children, ...rest }: LinkProps) {
  return (
    <a
      href={href}
      {...rest}
      onClick={(event) => {
        if (!isPlainClick(event)) return;
        event.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
