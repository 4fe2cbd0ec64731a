//! Formulas of one variable for `equipoise plot --theory`: numbers, `x` (the plot's x axis),
//! `+ - * / ^`, parentheses, and `sqrt`, `exp`, `ln`, `min`, `max`; for example seed 004's
//! Theorem 1 utilization `1 - 1/(1 + 3*x)`.

/// A formula parsed.
#[derive(Clone, Debug, PartialEq)]
pub enum Formula {
    /// A constant.
    Number(f64),
    /// The plot's x axis.
    X,
    /// `-a`.
    Neg(Box<Formula>),
    /// `a op b`, op one of `+ - * / ^`.
    Binary(char, Box<Formula>, Box<Formula>),
    /// A function of one or two arguments.
    Call(&'static str, Vec<Formula>),
}

const FUNCTIONS: [(&str, usize); 5] = [("sqrt", 1), ("exp", 1), ("ln", 1), ("min", 2), ("max", 2)];

impl Formula {
    /// Parses `text`; the error says where and what was expected.
    pub fn parse(text: &str) -> Result<Formula, String> {
        let mut p = Parser { chars: text.chars().collect(), at: 0 };
        let f = p.sum()?;
        if p.peek().is_some() {
            return Err(format!("--theory {text:?}: unexpected {:?} at character {}", p.chars[p.at], p.at + 1));
        }
        Ok(f)
    }

    /// The value at `x`.
    pub fn eval(&self, x: f64) -> f64 {
        match self {
            Formula::Number(v) => *v,
            Formula::X => x,
            Formula::Neg(a) => -a.eval(x),
            Formula::Binary(op, a, b) => {
                let (a, b) = (a.eval(x), b.eval(x));
                match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    '/' => a / b,
                    _ => a.powf(b),
                }
            }
            Formula::Call(name, args) => {
                let v: Vec<f64> = args.iter().map(|a| a.eval(x)).collect();
                match *name {
                    "sqrt" => v[0].sqrt(),
                    "exp" => v[0].exp(),
                    "ln" => v[0].ln(),
                    "min" => v[0].min(v[1]),
                    _ => v[0].max(v[1]),
                }
            }
        }
    }
}

struct Parser {
    chars: Vec<char>,
    at: usize,
}

impl Parser {
    /// The next character that is not a space.
    fn peek(&mut self) -> Option<char> {
        while self.chars.get(self.at).is_some_and(|c| c.is_whitespace()) {
            self.at += 1;
        }
        self.chars.get(self.at).copied()
    }

    /// The character at the cursor, spaces included (inside a number or a name).
    fn here(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.peek() == Some(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("--theory: expected {c:?} at character {}", self.at + 1))
        }
    }

    /// sum := product (('+' | '-') product)*
    fn sum(&mut self) -> Result<Formula, String> {
        let mut left = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.at += 1;
            left = Formula::Binary(op, Box::new(left), Box::new(self.product()?));
        }
        Ok(left)
    }

    /// product := unary (('*' | '/') unary)*
    fn product(&mut self) -> Result<Formula, String> {
        let mut left = self.unary()?;
        while let Some(op @ ('*' | '/')) = self.peek() {
            self.at += 1;
            left = Formula::Binary(op, Box::new(left), Box::new(self.unary()?));
        }
        Ok(left)
    }

    /// unary := '-' unary | power   (so -x^2 is -(x^2))
    fn unary(&mut self) -> Result<Formula, String> {
        if self.peek() == Some('-') {
            self.at += 1;
            return Ok(Formula::Neg(Box::new(self.unary()?)));
        }
        self.power()
    }

    /// power := atom ('^' unary)?   (right-associative)
    fn power(&mut self) -> Result<Formula, String> {
        let base = self.atom()?;
        if self.peek() == Some('^') {
            self.at += 1;
            return Ok(Formula::Binary('^', Box::new(base), Box::new(self.unary()?)));
        }
        Ok(base)
    }

    /// atom := number | 'x' | '(' sum ')' | function '(' sum (',' sum)? ')'
    fn atom(&mut self) -> Result<Formula, String> {
        let next = self.peek();
        let start = self.at;
        match next {
            Some('(') => {
                self.at += 1;
                let f = self.sum()?;
                self.expect(')')?;
                Ok(f)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => {
                while self.here().is_some_and(|c| c.is_ascii_digit() || c == '.' || c == 'e')
                    || (self.here() == Some('-') && self.chars.get(self.at - 1) == Some(&'e'))
                {
                    self.at += 1;
                }
                let text: String = self.chars[start..self.at].iter().collect();
                text.parse().map(Formula::Number).map_err(|_| format!("--theory: {text:?} is not a number"))
            }
            Some(c) if c.is_ascii_alphabetic() => {
                while self.here().is_some_and(|c| c.is_ascii_alphabetic()) {
                    self.at += 1;
                }
                let name: String = self.chars[start..self.at].iter().collect();
                if name == "x" {
                    return Ok(Formula::X);
                }
                let Some(&(f, arity)) = FUNCTIONS.iter().find(|(n, _)| *n == name) else {
                    let names: Vec<&str> = FUNCTIONS.iter().map(|(n, _)| *n).collect();
                    return Err(format!("--theory: unknown name {name:?} (the variable is x; functions: {})", names.join(", ")));
                };
                self.expect('(')?;
                let mut args = vec![self.sum()?];
                while args.len() < arity {
                    self.expect(',')?;
                    args.push(self.sum()?);
                }
                self.expect(')')?;
                Ok(Formula::Call(f, args))
            }
            other => Err(format!("--theory: expected a number, x, a function or '(' at character {}, got {other:?}", self.at + 1)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn theorem_1_and_precedence() {
        let f = Formula::parse("1 - 1/(1 + 3*x)").unwrap();
        assert_eq!(f.eval(1.0), 0.75);
        assert!((f.eval(3.0) - 0.9).abs() < 1e-12);
        assert_eq!(Formula::parse("2^3^2").unwrap().eval(0.0), 512.0, "right-associative");
        assert_eq!(Formula::parse("-x^2").unwrap().eval(3.0), -9.0);
        assert_eq!(Formula::parse("max(x, 2) * 1e-1 + sqrt(16)").unwrap().eval(5.0), 4.5);
        assert_eq!(Formula::parse("2.5e-1").unwrap().eval(0.0), 0.25);
    }

    #[test]
    fn errors_say_where() {
        assert!(Formula::parse("1 +").unwrap_err().contains("expected a number, x, a function or '('"));
        assert!(Formula::parse("y + 1").unwrap_err().contains("unknown name \"y\""));
        assert!(Formula::parse("(1 + x").unwrap_err().contains("expected ')'"));
        assert!(Formula::parse("1 2").is_err());
    }
}
