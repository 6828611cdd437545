<?php

namespace Licensing\WordPress;

/**
 * A notice kept for the signed-in user across the redirect that follows a form (post, redirect,
 * get: reloading the screen does not send the form again), shown once.
 */
final class Notices
{
    /** @var string */
    private $prefix;

    public function __construct(string $prefix)
    {
        $this->prefix = $prefix;
    }

    public function put(Notice $notice): void
    {
        set_transient($this->name(), ['type' => $notice->type, 'message' => $notice->message], 5 * MINUTE_IN_SECONDS);
    }

    /** The notice kept for this user, removed as it is taken; null when there is none. */
    public function take(): ?Notice
    {
        $kept = get_transient($this->name());
        if (!is_array($kept) || !isset($kept['type'], $kept['message'])) {
            return null;
        }
        delete_transient($this->name());
        return new Notice((string) $kept['type'], (string) $kept['message']);
    }

    private function name(): string
    {
        return $this->prefix . '_notice_' . get_current_user_id();
    }
}
