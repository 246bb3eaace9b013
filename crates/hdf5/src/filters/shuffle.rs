//! Byte unshuffle: the shuffle filter stores byte 0 of every element, then byte 1, …

pub fn unshuffle(src: &[u8], es: usize) -> Vec<u8> {
    if es <= 1 || src.len() < es {
        return src.to_vec();
    }
    let n = src.len() / es;
    let mut out = vec![0u8; src.len()];
    for b in 0..es {
        let plane = &src[b * n..(b + 1) * n];
        for (i, &v) in plane.iter().enumerate() {
            out[i * es + b] = v;
        }
    }
    out[n * es..].copy_from_slice(&src[n * es..]);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn roundtrip() {
        let data: Vec<u8> = (0..23).collect();
        let es = 4;
        let n = data.len() / es;
        let mut sh = vec![0u8; data.len()];
        for i in 0..n {
            for b in 0..es {
                sh[b * n + i] = data[i * es + b];
            }
        }
        sh[n * es..].copy_from_slice(&data[n * es..]);
        assert_eq!(super::unshuffle(&sh, es), data);
    }
}
