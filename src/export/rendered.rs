//! A session's Markdown (what the person and the model wrote) as HTML for the page,
//! safe to open: raw HTML in the text is shown as text, a link goes only to the web, a
//! mail address or the page itself, and an image is a link, never loaded (the page
//! works offline and tells no server it was opened).

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// `text`, read as CommonMark (with tables, strikethrough and task lists), as HTML.
pub(super) fn markdown(text: &str) -> String {
    let options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // Whether each open link was let through, so that its end matches.
    let mut links: Vec<bool> = Vec::new();
    let events = Parser::new_ext(text, options).map(|event| match event {
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let safe = is_safe_link(&dest_url);
            links.push(safe);
            if safe {
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    title,
                    id,
                })
            } else {
                Event::Text(CowStr::from(""))
            }
        }
        Event::End(TagEnd::Link) => match links.pop() {
            Some(false) => Event::Text(CowStr::from("")),
            _ => Event::End(TagEnd::Link),
        },
        // An image's address, as a link to follow by hand; its words stay.
        Event::Start(Tag::Image { dest_url, .. }) => {
            let safe = is_safe_link(&dest_url);
            links.push(safe);
            if safe {
                Event::Start(Tag::Link {
                    link_type: LinkType::Inline,
                    dest_url,
                    title: CowStr::from(""),
                    id: CowStr::from(""),
                })
            } else {
                Event::Text(CowStr::from(""))
            }
        }
        Event::End(TagEnd::Image) => match links.pop() {
            Some(false) => Event::Text(CowStr::from("")),
            _ => Event::End(TagEnd::Link),
        },
        event => event,
    });
    let mut html = String::with_capacity(text.len() + text.len() / 4);
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

/// Links a page may hold: to the web, to a mail address, or within the page.
fn is_safe_link(url: &str) -> bool {
    let url = url.trim_start().to_ascii_lowercase();
    url.starts_with("https://")
        || url.starts_with("http://")
        || url.starts_with("mailto:")
        || url.starts_with('#')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_renders_and_raw_html_is_text() {
        let html =
            markdown("# Plan\n\n- **one**\n- `two`\n\n<script>alert(1)</script>\n\nx <b>y</b>");
        assert!(html.contains("<h1>Plan</h1>"), "{html}");
        assert!(html.contains("<strong>one</strong>"), "{html}");
        assert!(html.contains("<code>two</code>"), "{html}");
        assert!(!html.contains("<script"), "{html}");
        assert!(html.contains("&lt;script&gt;"), "{html}");
        assert!(html.contains("&lt;b&gt;y&lt;/b&gt;"), "{html}");
    }

    #[test]
    fn links_go_only_to_the_web_and_images_are_never_loaded() {
        let html = markdown("[a](javascript:alert(1)) [b](https://example.com) ![c](https://t.example/p.png) ![d](data:image/png;base64,AA)");
        assert!(!html.contains("javascript"), "{html}");
        assert!(
            html.contains("<a href=\"https://example.com\">b</a>"),
            "{html}"
        );
        assert!(!html.contains("<img"), "{html}");
        assert!(
            html.contains("<a href=\"https://t.example/p.png\">c</a>"),
            "{html}"
        );
        assert!(!html.contains("data:"), "{html}");
        assert!(html.contains('d'), "{html}");
    }
}
