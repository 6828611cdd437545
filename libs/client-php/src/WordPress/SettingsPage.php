<?php

namespace Licensing\WordPress;

/**
 * The license screen: a submenu (under Settings unless the plugin names its own menu) for users
 * who may manage options. Each form carries a nonce checked with check_admin_referer(); what an
 * action did is kept for the redirect that follows it and shown once as an admin notice.
 */
final class SettingsPage
{
    public const CAPABILITY = 'manage_options';
    private const ACTIONS = ['activate', 'deactivate', 'check'];

    /** @var LicenseManager */
    private $manager;
    /** @var Notices */
    private $notices;
    /** @var string */
    private $prefix;
    /** @var string */
    private $menuParent;
    /** @var string */
    private $pageSlug;
    /** @var string */
    private $title;
    /** @var string */
    private $menuTitle;

    public function __construct(LicenseManager $manager, string $prefix, string $menuParent, string $pageSlug, string $title, string $menuTitle)
    {
        $this->manager = $manager;
        $this->notices = new Notices($prefix);
        $this->prefix = $prefix;
        $this->menuParent = $menuParent;
        $this->pageSlug = $pageSlug;
        $this->title = $title;
        $this->menuTitle = $menuTitle;
    }

    public function register(): void
    {
        // After the plugins' own menus (priority 10), so a submenu of one finds its parent.
        add_action('admin_menu', [$this, 'addMenu'], 20);
    }

    public function addMenu(): void
    {
        $hook = add_submenu_page($this->menuParent, $this->title, $this->menuTitle, self::CAPABILITY, $this->pageSlug, [$this, 'render']);
        if (is_string($hook) && $hook !== '') {
            add_action('load-' . $hook, [$this, 'handle']);
        }
    }

    /** The screen's address. */
    public function url(): string
    {
        $parent = preg_match('/\.php(\?|$)/', $this->menuParent) === 1 ? $this->menuParent : 'admin.php';
        return add_query_arg('page', $this->pageSlug, admin_url($parent));
    }

    /** The forms' answers, before anything is printed: then back to the screen. */
    public function handle(): void
    {
        if (!isset($_SERVER['REQUEST_METHOD']) || $_SERVER['REQUEST_METHOD'] !== 'POST' || !isset($_POST['licensing_action'])) {
            return;
        }
        if (!current_user_can(self::CAPABILITY)) {
            wp_die(esc_html__('You are not allowed to manage this license.', 'licensing-client'), 403);
        }
        $action = sanitize_key(wp_unslash((string) $_POST['licensing_action']));
        if (!in_array($action, self::ACTIONS, true)) {
            wp_die(esc_html__('Unknown license action.', 'licensing-client'), 400);
        }
        check_admin_referer($this->nonceAction($action));
        if ($action === 'activate') {
            $key = isset($_POST['license_key']) ? sanitize_text_field(wp_unslash((string) $_POST['license_key'])) : '';
            $notice = $this->manager->activate($key);
        } elseif ($action === 'deactivate') {
            $notice = $this->manager->deactivate();
        } else {
            $notice = $this->manager->refresh();
        }
        $this->notices->put($notice);
        wp_safe_redirect($this->url());
        exit;
    }

    public function render(): void
    {
        if (!current_user_can(self::CAPABILITY)) {
            wp_die(esc_html__('You are not allowed to manage this license.', 'licensing-client'), 403);
        }
        $view = new SettingsView($this->title, $this->url(), $this->prefix, [$this, 'nonceAction']);
        $view->render($this->manager->state(), $this->notices->take());
    }

    /** The nonce action of one of the screen's forms. */
    public function nonceAction(string $action): string
    {
        return $this->prefix . '_license_' . $action;
    }
}
