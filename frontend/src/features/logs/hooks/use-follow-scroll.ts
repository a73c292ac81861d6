import { useCallback, useLayoutEffect, useRef, useState } from "react";

const BOTTOM_SLACK_PX = 24;

/**
 * Keeps a scroll container pinned to the bottom while `following`; scrolling up stops
 * following, scrolling back to the bottom (or calling `jumpToBottom`) resumes it.
 */
export function useFollowScroll<T extends HTMLElement>(contentVersion: unknown) {
  const ref = useRef<T | null>(null);
  const [following, setFollowing] = useState(true);
  // Where we last pinned to: content growing below is not the user scrolling up.
  const pinnedTop = useRef(0);

  const onScroll = useCallback(() => {
    const element = ref.current;
    if (!element) return;
    const atBottom = element.scrollHeight - element.scrollTop - element.clientHeight <= BOTTOM_SLACK_PX;
    setFollowing(atBottom || element.scrollTop >= pinnedTop.current - 1);
  }, []);

  const pin = useCallback(() => {
    const element = ref.current;
    if (!element) return;
    element.scrollTop = element.scrollHeight;
    pinnedTop.current = element.scrollTop;
  }, []);

  useLayoutEffect(() => {
    if (following) pin();
  }, [contentVersion, following, pin]);

  const jumpToBottom = useCallback(() => {
    setFollowing(true);
    pin();
  }, [pin]);

  return { ref, following, onScroll, jumpToBottom };
}
