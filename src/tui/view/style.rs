//! Colours, with a switch for `NO_COLOR`: every coloured thing also has a glyph or word.

use crate::tui::view::marks::TokenState;
use ctxlens_core::analysis::Severity;
use ctxlens_core::model::Verdict;
use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Theme {
    pub color: bool,
}

impl Theme {
    fn fg(&self, color: Color) -> Style {
        if self.color {
            Style::new().fg(color)
        } else {
            Style::new()
        }
    }

    pub(crate) fn bold(&self) -> Style {
        Style::new().add_modifier(Modifier::BOLD)
    }

    pub(crate) fn dim(&self) -> Style {
        if self.color {
            Style::new().fg(Color::DarkGray)
        } else {
            Style::new()
        }
    }

    pub(crate) fn selected(&self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }

    /// What a search found, in the text that holds it.
    pub(crate) fn found(&self) -> Style {
        match self.color {
            true => Style::new()
                .bg(Color::Yellow)
                .fg(Color::Black)
                .add_modifier(Modifier::BOLD),
            false => Style::new().add_modifier(Modifier::REVERSED | Modifier::UNDERLINED),
        }
    }

    pub(crate) fn red(&self) -> Style {
        self.fg(Color::Red)
    }

    pub(crate) fn yellow(&self) -> Style {
        self.fg(Color::Yellow)
    }

    pub(crate) fn green(&self) -> Style {
        self.fg(Color::Green)
    }

    pub(crate) fn accent(&self) -> Style {
        self.fg(Color::Cyan)
    }

    /// A role's colour in the timeline; its label says it without colour too.
    pub(crate) fn role(&self, role: crate::legend::EventRole) -> Style {
        use crate::legend::EventRole;
        match role {
            EventRole::User => self.fg(Color::LightBlue).add_modifier(Modifier::BOLD),
            EventRole::Assistant => self.fg(Color::White),
            EventRole::Thinking | EventRole::Bookkeeping => self.dim(),
            EventRole::ToolCall => self.accent(),
            EventRole::ToolResult => self.green(),
            EventRole::ToolError => self.red(),
            EventRole::System => self.fg(Color::Magenta),
            EventRole::Compaction => self.bold(),
            EventRole::Record => self.yellow(),
        }
    }

    pub(crate) fn token(&self, state: TokenState) -> Style {
        match state {
            TokenState::Kept | TokenState::Carried | TokenState::ReDerived => self.green(),
            TokenState::DroppedNoRefetch => self.red().add_modifier(Modifier::BOLD),
            TokenState::Recalled => self.yellow().add_modifier(Modifier::BOLD),
            TokenState::DroppedRegenerable | TokenState::Dropped => self.yellow(),
            TokenState::Unknown => self.dim(),
        }
    }

    pub(crate) fn severity(&self, severity: Severity) -> Style {
        match severity {
            Severity::Error => self.red(),
            Severity::Warning => self.yellow(),
            Severity::Note => self.dim(),
        }
    }

    pub(crate) fn verdict(&self, verdict: Verdict) -> Style {
        match verdict {
            Verdict::Approve => self.green(),
            Verdict::Spill | Verdict::Preserve => self.yellow(),
            Verdict::Refetch | Verdict::Refuse | Verdict::Degrade => self.red(),
        }
        .add_modifier(Modifier::BOLD)
    }

    pub(crate) fn focused_border(&self, focused: bool) -> Style {
        if focused {
            self.accent().add_modifier(Modifier::BOLD)
        } else {
            self.dim()
        }
    }
}

pub(crate) fn severity_glyph(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "✖",
        Severity::Warning => "⚠",
        Severity::Note => "·",
    }
}
